// /embed/<agent>?tenant=<slug>&host=<origin>: the chat surface public/embed.js frames, as a page of
// our own HTML and the widget bundle (server/embed/page.ts), outside Next's client runtime. No session
// cookie is needed: the token arrives from the host page (components/chat/embed-surface.tsx). Its CSP
// (frame-ancestors: the tenant's allowed embed origins) is set by proxy.ts.
import type { NextRequest } from "next/server";
import { logger } from "@/lib/logger";
import { embedPageHtml, embedQuery } from "@/server/embed/page";
import { widgetAssets } from "@/server/embed/widget-assets";

export const dynamic = "force-dynamic";

const headers = { "content-type": "text/html; charset=utf-8", "cache-control": "private, no-cache, no-store, max-age=0, must-revalidate" };

export async function GET(request: NextRequest, { params }: { params: Promise<{ agent: string }> }) {
  const query = embedQuery((await params).agent, request.nextUrl.searchParams);
  const html = embedPageHtml(query, await widgetAssets("embed"));
  if (html === undefined) {
    logger.error("embed page: the widget is not built (public/embed-app/manifest.json): run `npm run build:embed`");
    return new Response("The chat is unavailable.", { status: 503, headers: { "content-type": "text/plain; charset=utf-8" } });
  }
  return new Response(html, { headers });
}
