// The framework's ChatContextResolver: who is chatting (a next-auth session, or an embed token from
// the iframe), in which tenant, with which limits, through which platform client.
//
// COORDINATOR SEAM: bindPlatformClient() below is the one place that turns (tenant, user) into a
// platform client bound with forUser() to that member's platform user_id. Wire it to the framework's
// platform connection (the same one tRPC's ctx.platform uses); until then it answers 503.
import type { PlatformClient } from "@/lib/platform-client";
import { admissionError } from "@/lib/chat/errors";
import type { PrismaClient } from "@/server/generated/prisma/client";
import { getSession } from "@/server/auth/session";
import { getDb } from "@/server/db";
import { isAllowedOrigin } from "@/server/embed/origins";
import { EmbedTokenError, verifyEmbedToken } from "@/server/embed/tokens";
import { LimitExceededError } from "@/server/tenancy/errors";
import { admitRun, recordRunCost, releaseRun } from "@/server/tenancy/limits";
import { resolveActiveMembership } from "@/server/tenancy/tenants";
import { ChatRefusal, agentByName, type ChatContext, type ChatContextResolver } from "./context";

/** The header the embedded chat sends its token in (never a cookie: third-party cookies may be off). */
export const EMBED_TOKEN_HEADER = "x-inlay-embed-token";
/** The host page's origin the embedded chat runs in; the token must have been minted for it. */
export const EMBED_ORIGIN_HEADER = "x-inlay-embed-origin";
/** The active tenant cookie (server/api/trpc.ts's ACTIVE_TENANT_COOKIE; not imported, server/api is tRPC's). */
const ACTIVE_TENANT_COOKIE = "inlay_tenant";

export class ChatNotConfiguredError extends ChatRefusal {
  override name = "ChatNotConfiguredError";
  constructor(detail: string) {
    super({ kind: "unavailable", message: "The chat is not available yet." });
    this.message = detail;
  }
}

export interface MemberRef {
  tenant: { id: string; name: string; slug: string };
  userId: string;
}

/** COORDINATOR SEAM: (tenant, user) → a platform client bound to that member's platform user_id. */
export let bindPlatformClient: (prisma: PrismaClient, member: MemberRef) => Promise<PlatformClient> = async () => {
  throw new ChatNotConfiguredError("bindPlatformClient is not wired (server/chat/framework-context.ts)");
};

/** For the coordinator's wiring (and tests): replaces the default binding. */
export function setPlatformClientBinding(binding: typeof bindPlatformClient): void {
  bindPlatformClient = binding;
}

function cookie(request: Request, name: string): string | undefined {
  for (const entry of request.headers.get("cookie")?.split(";") ?? []) {
    const [key, ...rest] = entry.trim().split("=");
    if (key === name) return decodeURIComponent(rest.join("="));
  }
  return undefined;
}

const cents = (usd: string | undefined) => Math.round(Number(usd ?? "0") * 100);

async function member(
  prisma: PrismaClient,
  request: Request,
): Promise<(MemberRef & { via: "session" | "embed"; agent?: string }) | null> {
  const token = request.headers.get(EMBED_TOKEN_HEADER);
  if (token) {
    const origin = request.headers.get(EMBED_ORIGIN_HEADER);
    if (!origin) return null;
    let claims;
    try {
      claims = await verifyEmbedToken(token, { origin });
    } catch (error) {
      if (error instanceof EmbedTokenError) return null;
      throw error;
    }
    // Still allowed and still a member now: a token outlives nothing the tenant has taken back.
    if (!(await isAllowedOrigin(prisma, claims.tenantId, claims.origin))) return null;
    const { memberships } = await resolveActiveMembership(prisma, claims.userId, undefined);
    const membership = memberships.find((each) => each.tenant.id === claims.tenantId);
    return membership ? { tenant: membership.tenant, userId: claims.userId, via: "embed", agent: claims.agent } : null;
  }
  const session = await getSession();
  if (!session?.user.id) return null;
  const { active } = await resolveActiveMembership(prisma, session.user.id, cookie(request, ACTIVE_TENANT_COOKIE));
  return active ? { tenant: active.tenant, userId: session.user.id, via: "session" } : null;
}

export const resolveFrameworkChatContext: ChatContextResolver = async (request) => {
  const { prisma } = await getDb();
  const caller = await member(prisma, request);
  if (!caller) return null;
  const client = await bindPlatformClient(prisma, caller);
  const tenantId = caller.tenant.id;
  const context: ChatContext = {
    client,
    agentId: async (agent) => {
      // A token minted for one agent opens only that one.
      if (caller.agent !== undefined && caller.agent !== agent) {
        throw new ChatRefusal({ kind: "unauthorized", message: "This chat is not available here." });
      }
      return agentByName(client, agent);
    },
    async admit() {
      let ticket;
      try {
        ticket = await admitRun(prisma, { tenantId, userId: caller.userId });
      } catch (error) {
        if (error instanceof LimitExceededError) throw new ChatRefusal(admissionError({ ...error.details, message: error.message }));
        throw error;
      }
      return {
        async end(run, priorCostUsd) {
          if (run) {
            const costCents = Math.max(0, cents(run.usage.cost_usd) - cents(priorCostUsd));
            await recordRunCost(prisma, { tenantId, admissionId: ticket.admissionId, costCents });
          }
          await releaseRun(prisma, { tenantId, admissionId: ticket.admissionId });
        },
      };
    },
    subject: { tenantId, userId: caller.userId, via: caller.via },
  };
  return context;
};
