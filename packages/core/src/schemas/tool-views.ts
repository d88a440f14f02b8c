// Tool views: a tenant's declarative drawing of some tools' calls in the iframe embed (Admin → Embed),
// where the vendor's own components cannot run (the frame is Inlay's origin). Each names a title and
// the fields to show, as paths into the call's input and output; @inlay/react's toolViewRenderers
// turns them into tool renderers (reading values with chat/tool-views.ts, which the embed's small
// bundle takes without zod), drawn as text only (no HTML, no links, no script).
import { z } from "zod";
import { TOOL_VIEW_PATH, type ToolView as ToolViewShape } from "../chat/tool-views";

/** A tool as the agent calls it: letters, digits, _ and - (an app's or a server's tool: "crm__get_order"). */
const TOOL_VIEW_NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,99}$/;
export const MAX_TOOL_VIEWS = 50;

const path = z.string().regex(TOOL_VIEW_PATH, { message: "A value is input or output, then keys and indexes, e.g. output.order.total or input.id." });

// Typed as the shape the renderers read: the two cannot drift apart.
export const ToolView: z.ZodType<ToolViewShape> = z.strictObject({
  title: z.string().trim().min(1, { message: "Give the view a title." }).max(120, { message: "Use at most 120 characters." }),
  fields: z
    .array(z.strictObject({ label: z.string().trim().min(1).max(60), value: path }))
    .max(20, { message: "At most 20 fields." })
    .default([]),
  allowLabel: z.string().trim().min(1).max(40).optional(),
});
export type ToolView = ToolViewShape;

export const ToolViews = z.record(z.string(), ToolView).superRefine((views, ctx) => {
  const names = Object.keys(views);
  if (names.length > MAX_TOOL_VIEWS) ctx.addIssue({ code: "custom", message: `At most ${MAX_TOOL_VIEWS} tool views.` });
  for (const name of names) {
    if (!TOOL_VIEW_NAME.test(name)) ctx.addIssue({ code: "custom", path: [name], message: "A tool name is letters, digits, _ and -." });
  }
});
export type ToolViews = Record<string, ToolView>;
