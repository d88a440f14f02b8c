// /chat?agent=<tenant agent id or name>&mode=approval|plan|autonomous (no agent: their first): the
// signed-in member's full chat, as a page of our own HTML and the widget bundle (server/framework/chat/page.ts),
// outside Next's client runtime. The chat bridge (app/api/chat) checks the session and the tenant again
// on every request; this only decides what to show.
import { NextResponse, type NextRequest } from "next/server";
import { ACTIVE_TENANT_COOKIE } from "@/server/framework/api/trpc";
import { getSession } from "@/server/framework/auth/session";
import { chatPageHtml, chatPageQuery } from "@/server/framework/chat/page";
import { chatStorageScope } from "@/server/framework/chat/storage-scope";
import { getDb } from "@/server/shared/db";
import { widgetPageResponse } from "@/server/framework/embed/html";
import { widgetAssets } from "@/server/framework/embed/widget-assets";
import { chatAgentTitle, defaultChatAgentName } from "@/server/framework/tenancy/agents";
import { resolveActiveMembership } from "@/server/framework/tenancy/tenants";
import { timedRoute } from "@/server/framework/observability/metrics";

export const dynamic = "force-dynamic";

async function get(request: NextRequest) {
  const url = request.nextUrl;
  const session = await getSession();
  if (!session) {
    return NextResponse.redirect(new URL(`/signin?callbackUrl=${encodeURIComponent(url.pathname + url.search)}`, url));
  }
  const { agent: named, mode } = chatPageQuery(url.searchParams);
  const { prisma } = await getDb();
  const { active } = await resolveActiveMembership(prisma, session.user.id, request.cookies.get(ACTIVE_TENANT_COOKIE)?.value);
  // In no workspace: the overview says how to get into one.
  if (!active) return NextResponse.redirect(new URL("/", url));
  // The nav's Chat names no agent: the member's first. With none there is nothing to chat with: the
  // agents page lists the member's and says how to make one.
  const agent = named ?? (await defaultChatAgentName(prisma, active.tenant.id, session.user.id));
  if (!agent) return NextResponse.redirect(new URL("/agents", url));
  // The header names the agent, also when the URL has its id (an agent page's "Open the full chat").
  const title = named ? await chatAgentTitle(prisma, active.tenant.id, session.user.id, named) : agent;
  const viewer = { email: session.user.email ?? "", workspace: active.tenant.name, storageScope: chatStorageScope(active.tenant.id, session.user.id) };
  return widgetPageResponse(chatPageHtml(agent, mode, viewer, await widgetAssets("chat"), title), "chat page");
}

export const GET = timedRoute("/chat", get);
