// A vendor's own drawing of a tool call (an order card, a chart) in place of the default JSON view:
// `toolRenderers={{ crm__get_order: OrderCard }}` on <InlayChat> or <InlayProvider>. The renderer
// gets the call's input and, once the tool ran, its output; while the call waits for the person's
// approval it also gets `approval` with the buttons' actions. A tool without a renderer is drawn
// as before. Approval is still the platform's: a renderer that never calls allow() runs nothing.
import type { ComponentType } from "react";
import type { DynamicToolUIPart } from "ai";
import type { ChatDataTypes } from "@inlay/core/chat/types";
import type { CardActions } from "./parts";

export type ToolRenderState = "awaiting-approval" | "running" | "output" | "error" | "denied";

export interface ToolRenderProps<Input = unknown, Output = unknown> {
  toolName: string;
  toolCallId?: string;
  input: Input;
  /** Once `state` is "output". */
  output?: Output;
  /** Once `state` is "error". */
  errorText?: string;
  state: ToolRenderState;
  /** While the call waits for the person (state "awaiting-approval"). */
  approval?: {
    /** This browser already answered; the stream has not confirmed it yet. */
    answered: boolean;
    allow(scope?: "once" | "run" | "always"): Promise<void>;
    deny(): Promise<void>;
    /** Why the last answer failed, if it did. */
    error?: string;
  };
}

export type ToolRenderer<Input = unknown, Output = unknown> = ComponentType<ToolRenderProps<Input, Output>>;

/** Renderers by tool name (as the agent calls it, e.g. "crm__get_order"). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each tool's own input and output types
export type ToolRenderers = Record<string, ToolRenderer<any, any>>;

/**
 * Renderers typed from your tools' shapes where you know them:
 * `const renderers: ToolRenderersFor<{ crm__get_order: { input: { id: string }; output: Order } }> = { … }`.
 */
export type ToolRenderersFor<Tools extends Record<string, { input: unknown; output: unknown }>> = {
  [Name in keyof Tools]?: ToolRenderer<Tools[Name]["input"], Tools[Name]["output"]>;
};

const partStates: Partial<Record<DynamicToolUIPart["state"], ToolRenderState>> = {
  "input-streaming": "running",
  "input-available": "running",
  "output-available": "output",
  "output-error": "error",
  "output-denied": "denied",
};

/** A tool call part as a renderer's props. */
export function toolPartProps(part: DynamicToolUIPart): ToolRenderProps {
  return {
    toolName: part.toolName,
    toolCallId: part.toolCallId,
    input: part.input,
    ...(part.state === "output-available" ? { output: part.output } : {}),
    ...(part.state === "output-error" ? { errorText: part.errorText } : {}),
    state: partStates[part.state] ?? "running",
  };
}

/** An approval request as a renderer's props, with the card's actions. */
export function approvalProps(data: ChatDataTypes["approval"], actions: CardActions): ToolRenderProps {
  const pending = data.state === "pending";
  return {
    toolName: data.toolName,
    toolCallId: data.toolCallId,
    input: data.input,
    state: pending ? "awaiting-approval" : data.state === "denied" ? "denied" : "running",
    ...(pending
      ? {
          approval: {
            answered: actions.local[data.requestId] !== undefined,
            allow: (scope = "once") => actions.approve(data, "allow", scope),
            deny: () => actions.approve(data, "deny"),
            ...(actions.errors[data.requestId] ? { error: actions.errors[data.requestId] } : {}),
          },
        }
      : {}),
  };
}
