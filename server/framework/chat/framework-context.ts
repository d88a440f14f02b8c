// The framework's ChatContextResolver: who is chatting (a next-auth session, or an embed token from
// the iframe), in which tenant, with which limits, through which platform client. The client is the
// one tRPC's ctx.platform uses (the framework's platform connection, bound with forUser to the
// member's platform user_id), and agents are the tenant's (server/framework/tenancy/agents.ts).
import type { PlatformClient } from "@inlay/core/platform-client";
import { admissionError } from "@inlay/core/chat/errors";
import type { Db } from "@/server/shared/db";
import { getSession } from "@/server/framework/auth/session";
import { getDb } from "@/server/shared/db";
import { foreignOrigin } from "@/server/framework/embed/cors";
import { embedMember } from "@/server/framework/embed/origins";
import { EmbedTokenError, verifyEmbedToken } from "@/server/framework/embed/tokens";
import { publicOrigin } from "@/server/shared/public-origin";
import { completeConnection, disconnect, listMemberApps, startConnection } from "@/server/framework/tenancy/connections";
import { LimitExceededError, TenancyError } from "@/server/framework/tenancy/errors";
import { getMyUsage } from "@/server/framework/tenancy/limits";
import { beginRun, runAbandoned, runRefused, runStarted, settleRun, settleTurn, type RunTicket } from "@/server/framework/tenancy/run-ledger";
import { createAgent, ensureAgentCopy, findNamedAgent, getVisibleAgent, mayCreatePersonalAgent, type Caller } from "@/server/framework/tenancy/agents";
import { getPlatformConnection } from "@/server/framework/platform";
import { prepareMemberRun } from "@/server/framework/tenancy/tenant-tools";
import { lazyPlatformClient } from "@/server/framework/tenancy/platform-users";
import { resolveActiveMembership } from "@/server/framework/tenancy/tenants";
import { ChatRefusal, type ChatContext, type ChatContextResolver } from "./context";
import { ASK_USER_QUESTION } from "@inlay/core/schemas/runs";

/** The header the embedded chat sends its token in (never a cookie: third-party cookies may be off). */
export const EMBED_TOKEN_HEADER = "x-inlay-embed-token";
/** The host page's origin the embedded chat runs in; the token must have been minted for it. */
export const EMBED_ORIGIN_HEADER = "x-inlay-embed-origin";
/** The active tenant cookie (server/framework/api/trpc.ts's ACTIVE_TENANT_COOKIE; not imported, server/framework/api is tRPC's). */
const ACTIVE_TENANT_COOKIE = "inlay_tenant";

export interface MemberRef {
  tenant: { id: string; name: string; slug: string };
  userId: string;
  role: "member" | "admin";
}

/** (tenant, user) → a platform client bound to that member's platform user_id (as tRPC's ctx.platform). */
export let bindPlatformClient: (prisma: Db, member: MemberRef) => Promise<PlatformClient> = (prisma, member) =>
  lazyPlatformClient(prisma, () => getPlatformConnection(prisma), member.tenant, member.userId)();

/**
 * The platform agent a chat's `agent` names: a tenant agent the member can see (by id, or by name
 * case-insensitively, as names are unique in a tenant), as the member's own copy. Otherwise, only
 * when a message is sent (`create`) by someone who may define their own agents, a personal agent of
 * that name (made on first use, in approval mode with the calculator, memory and questions); reading
 * (history, a conversation, commands) never creates one. Else 404.
 */
async function chatAgent(prisma: Db, client: PlatformClient, caller: Caller, agent: string, create: boolean): Promise<number> {
  const match = await findNamedAgent(prisma, caller, agent);
  if (match) return ensureAgentCopy(prisma, client, caller, match);
  // Who may define an agent of their own (as on the Agents page): a member's chat never makes one
  // where the workspace has personal agents off.
  if (!create || !(await mayCreatePersonalAgent(prisma, caller))) throw new ChatRefusal({ kind: "not_found", message: "There is no agent by that name here." });
  let created;
  try {
    created = await createAgent(prisma, caller, "personal", {
      name: agent,
      instructions: "",
      model: null,
      permissionMode: "approval",
      tools: ["calculator", "memory", ASK_USER_QUESTION],
    });
  } catch (error) {
    // Another member's personal agent has the name: this member cannot see it.
    if (error instanceof TenancyError && error.code === "CONFLICT") throw new ChatRefusal({ kind: "conflict", message: error.message });
    throw error;
  }
  return ensureAgentCopy(prisma, client, caller, await getVisibleAgent(prisma, caller, created.id));
}

/** For tests: replaces the default binding. */
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

async function member(
  prisma: Db,
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
      // Expired is told apart from refused: the iframe then asks its host page for a new token.
      if (error instanceof EmbedTokenError && error.reason === "expired") {
        throw new ChatRefusal({ kind: "token_expired", code: "embed_token_expired", message: "The chat's sign-in expired; ask for a new token." });
      }
      if (error instanceof EmbedTokenError) return null;
      throw error;
    }
    // A page on another site (a vendor's own, through @inlay/react) may use only a token minted for it:
    // the browser's Origin, which that page cannot forge, must be the token's.
    const browserOrigin = foreignOrigin(request);
    if (browserOrigin !== undefined && browserOrigin !== claims.origin) return null;
    // Still allowed and still a member now: a token outlives nothing the tenant has taken back.
    const membership = await embedMember(prisma, claims);
    return membership
      ? { tenant: membership.tenant, userId: claims.userId, role: membership.role, via: "embed", agent: claims.agent }
      : null;
  }
  const session = await getSession();
  if (!session?.user.id) return null;
  const { active } = await resolveActiveMembership(prisma, session.user.id, cookie(request, ACTIVE_TENANT_COOKIE));
  return active ? { tenant: active.tenant, userId: session.user.id, role: active.role, via: "session" } : null;
}

export const resolveFrameworkChatContext: ChatContextResolver = async (request) => {
  const { prisma } = await getDb();
  const caller = await member(prisma, request);
  if (!caller) return null;
  const client = await bindPlatformClient(prisma, caller);
  const tenantId = caller.tenant.id;
  // The turn this request admitted, once the platform named its run: its end settles that admission.
  let turn: { ticket: RunTicket; runId: number } | undefined;
  const context: ChatContext = {
    client,
    agentId: async (agent, options) => {
      // A token minted for one agent opens only that one.
      if (caller.agent !== undefined && caller.agent !== agent) {
        throw new ChatRefusal({ kind: "unauthorized", message: "This chat is not available here." });
      }
      return chatAgent(prisma, client, { tenantId, userId: caller.userId, role: caller.role }, agent, options?.create === true);
    },
    async admit({ reply }) {
      try {
        const ticket = await beginRun(prisma, { tenantId, userId: caller.userId }, { kind: reply ? "reply" : "run" });
        return {
          started: async (runId, priorCostUsd) => {
            await runStarted(prisma, ticket, runId, { baseCostUsd: priorCostUsd });
            turn = { ticket, runId };
          },
          withdraw: () => runRefused(prisma, ticket),
          abandon: () => runAbandoned(prisma, ticket),
        };
      } catch (error) {
        if (error instanceof LimitExceededError) throw new ChatRefusal(admissionError({ ...error.details, message: error.message }));
        throw error;
      }
    },
    async connect(input) {
      try {
        // A vendor's page (the token's own origin, checked in member()) hears the popup's outcome itself.
        const opener = caller.via === "embed" ? foreignOrigin(request) : undefined;
        const started = await startConnection(prisma, client, { tenantId, userId: caller.userId }, { ...input, opener }, publicOrigin());
        return { authorizationUrl: started.authorizationUrl };
      } catch (error) {
        if (error instanceof TenancyError) throw new ChatRefusal({ kind: "unauthorized", message: error.message });
        throw error;
      }
    },
    prepare: () => prepareMemberRun(prisma, client, { tenantId, userId: caller.userId }),
    async complete(input) {
      try {
        return await completeConnection(prisma, client, tenantId, input);
      } catch (error) {
        if (error instanceof TenancyError) throw new ChatRefusal({ kind: "unauthorized", message: error.message });
        throw error;
      }
    },
    apps: () => listMemberApps(prisma, client, tenantId),
    async disconnect(input) {
      await disconnect(client, input);
      return { app: input.app };
    },
    quota: () => getMyUsage(prisma, tenantId, caller.userId),
    ended: async (run) => {
      if (turn?.runId === run.id) await settleTurn(prisma, turn.ticket, run, "stream");
      else await settleRun(prisma, run, "stream");
    },
    subject: { tenantId, userId: caller.userId, via: caller.via },
  };
  return context;
};
