// /embed/<agent>?tenant=<slug>&host=<origin>: the chat surface public/embed.js frames, as a page of
// our own HTML and the widget bundle (server/embed/page.ts), outside Next's client runtime. No session
// cookie is needed: the token arrives from the host page (components/chat/embed-surface.tsx). Its CSP
// (frame-ancestors: the tenant's allowed embed origins) is set by proxy.ts.
import type { NextRequest } from "next/server";
import { widgetPageResponse } from "@/server/embed/html";
import { embedPageHtml, embedQuery } from "@/server/embed/page";
import { widgetAssets } from "@/server/embed/widget-assets";

export const dynamic = "force-dynamic";

export async function GET(request: NextRequest, { params }: { params: Promise<{ agent: string }> }) {
  const query = embedQuery((await params).agent, request.nextUrl.searchParams);
  return widgetPageResponse(embedPageHtml(query, await widgetAssets("embed")), "embed page");
}
