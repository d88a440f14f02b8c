// What the pages written as HTML outside the app router share (the embed's, server/framework/embed/page.ts, and
// the full chat's, server/framework/chat/page.ts): escaping, the tags that load an entry of the widget bundle,
// and the route handlers' response.
import { logger } from "@/lib/logger";
import type { WidgetAssets } from "./widget-assets";

const escapes: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => escapes[char]!);

/** ` name="value"`, escaped, or nothing when the value is undefined. */
export const attribute = (name: string, value: string | undefined) => (value === undefined ? "" : ` ${name}="${escapeHtml(value)}"`);

/** The document's start, through </head>, with the app's favicon (app/icon.svg); `extra` is trusted markup (the tags below). */
export const pageHead = (title: string, extra: string) =>
  `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
  `<title>${escapeHtml(title)}</title><meta name="robots" content="noindex"><link rel="icon" href="/icon.svg" type="image/svg+xml">${extra}</head>`;

export const stylesheetTag = (assets: WidgetAssets) => `<link rel="stylesheet" href="${escapeHtml(assets.stylesheet)}">`;

/** The entry as a module script, its static chunks preloaded so they do not wait for it. */
export const scriptTags = (assets: WidgetAssets) =>
  assets.preload.map((file) => `<link rel="modulepreload" href="${escapeHtml(file)}">`).join("") +
  `<script type="module" src="${escapeHtml(assets.script)}"></script>`;

/**
 * A widget page's response: the HTML, never cached; or, when it could not be written because the
 * widget was not built, 503 and a log line saying what to run.
 */
export function widgetPageResponse(html: string | undefined, page: string): Response {
  if (html === undefined) {
    logger.error(`${page}: the widget is not built (public/embed-app/manifest.json): run \`npm run build:embed\``);
    return new Response("The chat is unavailable.", { status: 503, headers: { "content-type": "text/plain; charset=utf-8" } });
  }
  return new Response(html, {
    headers: { "content-type": "text/html; charset=utf-8", "cache-control": "private, no-cache, no-store, max-age=0, must-revalidate" },
  });
}
