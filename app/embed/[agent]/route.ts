// /embed/<agent>?tenant=<slug>&host=<origin>: the chat surface public/embed.js frames, as a page of
// our own HTML and the widget bundle (server/framework/embed/page.ts), outside Next's client runtime. No session
// cookie is needed: the token arrives from the host page (components/chat/embed-surface.tsx). Its CSP
// (frame-ancestors: the tenant's allowed embed origins) is set by proxy.ts; for a host the tenant does
// not allow, the page only says so.
import type { NextRequest } from "next/server";
import { getDb } from "@/server/shared/db";
import { widgetPageResponse } from "@/server/framework/embed/html";
import { embedPageSettings } from "@/server/framework/embed/origins";
import { embedPageHtml, embedQuery } from "@/server/framework/embed/page";
import { widgetAssets } from "@/server/framework/embed/widget-assets";
import { timedRoute } from "@/server/framework/observability/metrics";

export const dynamic = "force-dynamic";

async function get(request: NextRequest, { params }: { params: Promise<{ agent: string }> }) {
  const query = embedQuery((await params).agent, request.nextUrl.searchParams);
  const { prisma } = await getDb();
  const tenant = request.nextUrl.searchParams.get("tenant") ?? undefined;
  const settings = query.host === undefined ? { allowed: true, toolViews: {} } : await embedPageSettings(prisma, tenant, query.host);
  return widgetPageResponse(embedPageHtml(query, await widgetAssets("embed"), settings.allowed, settings.toolViews), "embed page");
}

export const GET = timedRoute("/embed/[agent]", get);
