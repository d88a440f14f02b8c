// Tool views (@inlay/core's schemas/tool-views.ts, read by chat/tool-views.ts) as tool renderers: a
// card with the view's title and fields, the approval's buttons while the call waits, and the error
// or denial once it ended. The iframe embed draws a tenant's views with them; a React app may pass
// its own views the same way (toolRenderers={toolViewRenderers(views)}). Values are text: nothing of
// the call becomes markup.
import { toolViewText, toolViewTitle, toolViewValue, type ToolView, type ToolViews } from "@inlay/core/chat/tool-views";
import type { ToolRenderProps, ToolRenderers } from "./tool-renderers";

const stateLabels = { "awaiting-approval": "Waiting for you", running: "Running", output: "Done", error: "Failed", denied: "Denied" } as const;

function ToolViewCard({ view, call }: { view: ToolView; call: ToolRenderProps }) {
  const { approval, state } = call;
  const pending = approval !== undefined && !approval.answered;
  const title = toolViewTitle(view, call);
  return (
    <section className="ic-card" data-tone={pending ? "attention" : undefined} data-tool-view={call.toolName} data-state={state} aria-label={title}>
      <div className="ic-card-head">
        <span>{title}</span>
        <span className="ic-badge" data-state={state === "awaiting-approval" ? "pending" : state}>
          {approval?.answered ? "Sending…" : stateLabels[state]}
        </span>
      </div>
      {view.fields.length > 0 && (
        <dl className="ic-card-body ic-view-fields">
          {view.fields.map((field) => (
            <div key={`${field.label}:${field.value}`}>
              <dt className="ic-label">{field.label}</dt>
              <dd>{toolViewText(toolViewValue(call, field.value)) || "—"}</dd>
            </div>
          ))}
        </dl>
      )}
      {(call.errorText || approval?.error) && (
        <p className="ic-card-body" role="alert">
          {approval?.error ?? call.errorText}
        </p>
      )}
      {pending && (
        <div className="ic-card-actions">
          <button type="button" className="ic-btn" data-variant="primary" onClick={() => void approval.allow("once")}>
            {view.allowLabel ?? "Allow"}
          </button>
          <button type="button" className="ic-btn" data-variant="danger" onClick={() => void approval.deny()}>
            Deny
          </button>
        </div>
      )}
    </section>
  );
}

/** Renderers for the tools the views name. */
export function toolViewRenderers(views: ToolViews): ToolRenderers {
  return Object.fromEntries(
    Object.entries(views).map(([toolName, view]) => {
      const Renderer = (props: ToolRenderProps) => <ToolViewCard view={view} call={props} />;
      Renderer.displayName = `ToolView(${toolName})`;
      return [toolName, Renderer];
    }),
  );
}
