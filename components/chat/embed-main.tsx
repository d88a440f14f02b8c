// The embed page's script: the entry of the widget bundle (server/framework/embed/widget-build.ts), which runs
// <EmbedSurface> on Preact (react and react-dom are aliased to preact/compat there) instead of React
// and Next's client runtime, to keep the iframe's JavaScript small. The page (server/framework/embed/page.ts)
// writes the checked query values on the root element's data attributes.
import "./embed-page.css";
import "@inlay/react/styles.css";
import { createRoot } from "react-dom/client";
import type { ToolViews } from "@inlay/core/chat/tool-views";
import { EmbedSurface } from "./embed-surface";

const root = document.getElementById("inlay-embed");
const { agent, host, title, accent, toolViews } = root?.dataset ?? {};

/** The page's tool views (checked when the admin saved them); a page without any draws tools by default. */
function parseViews(json: string | undefined): ToolViews {
  try {
    const views: unknown = json ? JSON.parse(json) : {};
    return views && typeof views === "object" ? (views as ToolViews) : {};
  } catch {
    return {};
  }
}

if (root && agent && host) {
  // The page's own "Connecting…" stands in until here; the surface renders the same first.
  root.replaceChildren();
  createRoot(root).render(<EmbedSurface agent={agent} host={host} title={title} accent={accent} toolViews={parseViews(toolViews)} />);
}
