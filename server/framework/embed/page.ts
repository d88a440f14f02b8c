// The HTML of /embed/<agent> (app/embed/[agent]/route.ts): the page public/embed.js frames. It is
// written here rather than rendered by the app router so that the iframe loads only the widget bundle
// (components/chat/embed-main.tsx on Preact), not React and Next's client runtime. The page holds
// nothing secret: the agent, host, title and accent from its own URL, checked here, and the tenant's
// tool views; the token arrives later by postMessage (components/chat/embed-surface.tsx).
import { attribute, escapeHtml, pageHead, scriptTags, stylesheetTag } from "./html";
import { normalizeOrigin } from "./tokens";
import type { ToolViews } from "@inlay/core/chat/tool-views";
import type { WidgetAssets } from "./widget-assets";

export interface EmbedQuery {
  agent: string;
  /** The host page's origin, normalised; without one the page only says what it is for. */
  host?: string;
  title?: string;
  accent?: string;
}

/** A query value given exactly once (a repeated one counts as absent, as the app router's page had it). */
function single(search: URLSearchParams, name: string): string | undefined {
  const values = search.getAll(name);
  return values.length === 1 ? values[0] : undefined;
}

export function embedQuery(agentSegment: string, search: URLSearchParams): EmbedQuery {
  const host = single(search, "host");
  const title = single(search, "title");
  const accent = single(search, "accent");
  let agent = agentSegment;
  try {
    agent = decodeURIComponent(agentSegment);
  } catch {
    // a lone "%": keep the segment as it came
  }
  return {
    agent,
    host: host === undefined ? undefined : normalizeOrigin(host),
    title: title?.slice(0, 80),
    // Only a hex colour: the value ends up in a style.
    accent: accent !== undefined && /^#[0-9a-f]{3,8}$/i.test(accent) ? accent : undefined,
  };
}

/**
 * The page, or (assets missing: the widget was not built) undefined. `hostAllowed` false: the tenant
 * does not allow the host, and the page only says so and what to do (no script: proxy.ts lets any
 * site frame it, so the visitor sees the reason rather than a blank frame).
 */
export function embedPageHtml(query: EmbedQuery, assets: WidgetAssets | undefined, hostAllowed = true, toolViews: ToolViews = {}): string | undefined {
  const head = (extra: string) => pageHead("Chat · Inlay", extra);
  const stylesheet = assets ? stylesheetTag(assets) : "";
  if (!query.host) {
    return `${head(stylesheet)}<body class="min-h-screen antialiased"><p class="p-6 text-sm text-muted">This page is opened by the embed script (public/embed.js).</p></body></html>`;
  }
  if (!hostAllowed) {
    const host = escapeHtml(query.host);
    return (
      `${head(stylesheet)}<body class="min-h-screen antialiased"><div class="flex h-screen flex-col items-center justify-center gap-2 p-6 text-center text-sm" role="alert">` +
      `<p class="font-medium">This chat is not available on this site.</p>` +
      `<p class="text-muted">${host} is not one of the workspace's allowed sites. If this is your site, add ${host} under Allowed sites on Inlay's Embed page (Admin → Embed).</p>` +
      `</div></body></html>`
    );
  }
  if (!assets) return undefined;
  const scripts = scriptTags(assets);
  // The same first paint as the surface's own "waiting" phase, until the script takes over.
  return (
    `${head(stylesheet + scripts)}<body class="min-h-screen antialiased">` +
    `<div id="inlay-embed"${attribute("data-agent", query.agent)}${attribute("data-host", query.host)}${attribute("data-title", query.title)}${attribute("data-accent", query.accent)}` +
    `${Object.keys(toolViews).length > 0 ? attribute("data-tool-views", JSON.stringify(toolViews)) : ""}>` +
    `<div class="flex h-screen items-center justify-center p-6 text-center text-sm text-muted" role="status">Connecting…</div>` +
    `</div></body></html>`
  );
}
