// Reading a tool view (schemas/tool-views.ts holds its contract) against a call: kept apart from the
// contract so the embed's bundle draws views without zod.

/** `input` or `output`, then keys and list indexes: output.order.lines[0].sku */
export const TOOL_VIEW_PATH = /^(input|output)(\.[A-Za-z_][A-Za-z0-9_-]{0,63}|\[\d{1,4}\]){0,8}$/;

export interface ToolView {
  /** The card's heading; {input.id}-style placeholders are filled from the call. */
  title: string;
  fields: { label: string; value: string }[];
  /** The approve button's label while the call waits for the person (default "Allow"). */
  allowLabel?: string;
}
export type ToolViews = Record<string, ToolView>;

/** The value at a view's path in a call ({ input, output }); undefined where there is none. */
export function toolViewValue(call: { input: unknown; output?: unknown }, valuePath: string): unknown {
  const steps = valuePath.match(/[A-Za-z_][A-Za-z0-9_-]*|\[\d+\]/g) ?? [];
  let node: unknown = call;
  for (const step of steps) {
    if (node === null || typeof node !== "object") return undefined;
    const key = step.startsWith("[") ? Number(step.slice(1, -1)) : step;
    if (!Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string | number, unknown>)[key];
  }
  return node;
}

/** A value as one line of text: strings as they are, other values as compact JSON, cut at 200 characters. */
export function toolViewText(value: unknown): string {
  if (value === undefined || value === null) return "";
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}

/** The title with its {path} placeholders filled. */
export function toolViewTitle(view: ToolView, call: { input: unknown; output?: unknown }): string {
  return view.title.replace(/\{([^{}]+)\}/g, (whole, inner: string) => (TOOL_VIEW_PATH.test(inner.trim()) ? toolViewText(toolViewValue(call, inner.trim())) : whole));
}
