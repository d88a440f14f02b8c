// /chat?agent=<tenant agent id or name>&mode=approval|plan|autonomous: the signed-in member's full chat,
// as a page of our own HTML and the widget bundle (server/chat/page.ts), outside Next's client runtime.
// The chat bridge (app/api/chat) checks the session and the tenant again on every request; this only
// decides what to show.
import { NextResponse, type NextRequest } from "next/server";
import { logger } from "@/lib/logger";
import { ACTIVE_TENANT_COOKIE } from "@/server/api/trpc";
import { getSession } from "@/server/auth/session";
import { chatPageHtml, chatPageQuery } from "@/server/chat/page";
import { getDb } from "@/server/db";
import { widgetAssets } from "@/server/embed/widget-assets";
import { resolveActiveMembership } from "@/server/tenancy/tenants";

export const dynamic = "force-dynamic";

const headers = { "content-type": "text/html; charset=utf-8", "cache-control": "private, no-cache, no-store, max-age=0, must-revalidate" };

export async function GET(request: NextRequest) {
  const url = request.nextUrl;
  const session = await getSession();
  if (!session) {
    return NextResponse.redirect(new URL(`/signin?callbackUrl=${encodeURIComponent(url.pathname + url.search)}`, url));
  }
  const { agent, mode } = chatPageQuery(url.searchParams);
  // Without an agent there is nothing to chat with: the agents page lists the member's.
  if (!agent) return NextResponse.redirect(new URL("/agents", url));
  const { prisma } = await getDb();
  const { active } = await resolveActiveMembership(prisma, session.user.id, request.cookies.get(ACTIVE_TENANT_COOKIE)?.value);
  // In no workspace: the overview says how to get into one.
  if (!active) return NextResponse.redirect(new URL("/", url));
  const html = chatPageHtml(agent, mode, { email: session.user.email ?? "", workspace: active.tenant.name }, await widgetAssets("chat"));
  if (html === undefined) {
    logger.error("chat page: the widget is not built (public/embed-app/manifest.json): run `npm run build:embed`");
    return new Response("The chat is unavailable.", { status: 503, headers: { "content-type": "text/plain; charset=utf-8" } });
  }
  return new Response(html, { headers });
}
