// The seam between the chat bridge and the rest of the framework. The bridge (server/framework/chat/bridge.ts)
// needs, per request, a platform client already bound to the caller's platform user_id, a way to
// name the agent, and the framework's admission (per-tenant limits). It gets them from a
// ChatContextResolver; it never sees a session, a tenant row or a platform key.
import type { PlatformClient, Run } from "@inlay/core/platform-client";
import type { ChatError } from "@inlay/core/chat/types";
import type { MemberApp } from "@inlay/core/schemas/connections";
import type { MyUsage } from "@inlay/core/schemas/tenancy";

/**
 * An admitted turn on the framework's run ledger (server/framework/tenancy/run-ledger.ts): told how its start
 * went. Once started it is settled when its run ends: by ChatContext.ended when the chat saw the end,
 * else from the platform's webhooks.
 */
export interface ChatAdmission {
  /** The platform accepted the turn on run `runId`, which had cost `priorCostUsd` before it (a reply's run). */
  started(runId: number, priorCostUsd?: string): Promise<void>;
  /** The platform refused the request (a 4xx): no run started, so the admission is given back whole. */
  withdraw(): Promise<void>;
  /** The start failed in a way that may have started a run nobody can name: released, nothing charged. */
  abandon(): Promise<void>;
}

export interface ChatContext {
  /** A client bound with forUser() to the caller's platform end-user. */
  client: PlatformClient;
  /**
   * The agent's platform id (teammate_id) for the name the page asked for; an unknown one is a
   * not_found ChatRefusal. `create`: the chat is sending a message, and may make the agent where the
   * context allows that (never when only reading).
   */
  agentId(agent: string, options?: { create?: boolean }): Promise<number>;
  /**
   * The framework's limits, before a run starts or a reply is sent (`reply`: the message continues a
   * run, so it is not counted as another run); throws ChatRefusal when refused.
   */
  admit?(turn: { reply: boolean }): Promise<ChatAdmission>;
  /**
   * Starts connecting an app (an app tool's run waits for it): the URL to send the browser to. Throws
   * ChatRefusal when the caller may not connect it. Absent: the chat cannot connect apps.
   */
  connect?(input: { app: string; returnTo?: string; mode: "popup" | "redirect" }): Promise<{ authorizationUrl: string }>;
  /** Completes a connection the popup's app granted (only the caller's own: another's is a 404). */
  complete?(input: { app: string; connectionId: string }): Promise<{ status: string; app: string }>;
  /**
   * Makes the caller's copies of what the tenant defined for its members (tool servers, skills) before
   * a new run starts or the `/` picker lists skills, and answers the apps the caller's runs may use (the
   * tenant offers them): named in each new run's tools, so a call to one the caller has not connected
   * pauses the run for a connection. Absent: nothing to prepare, no apps named.
   */
  prepare?(): Promise<{ apps?: string[] } | void>;
  /** The apps the tenant offers, with the caller's status and connections (the console's Connections page). Absent: none. */
  apps?(): Promise<MemberApp[]>;
  /** Ends the caller's own connection of an app (another's is the platform's 404). */
  disconnect?(input: { app: string; connectionId?: string }): Promise<{ app: string }>;
  /** The caller's quota this month (runs and cost against their caps), as the console shows it. Absent: none kept. */
  quota?(): Promise<MyUsage>;
  /**
   * The run a chat stream followed, as read at its done frame (ended, or waiting for the person). The
   * framework settles an ended run's turns here, before the stream closes, so the quota the page
   * refreshes then counts them; its webhook finds nothing left. Absent: nothing kept.
   */
  ended?(run: Run): Promise<void>;
  /** Who the caller is, for logs. Never sent to the browser. */
  subject: { tenantId: string; userId: string; via: "session" | "embed" };
}

/** A refusal the person should see (a cap, a rate limit): the bridge shows it as an error part. */
export class ChatRefusal extends Error {
  override name = "ChatRefusal";
  constructor(readonly chatError: ChatError) {
    super(chatError.message);
  }
}

/** null: the caller is not signed in (401). */
export type ChatContextResolver = (request: Request) => Promise<ChatContext | null>;

/**
 * The agent a chat names: a numeric id is taken as the platform agent id (the platform answers 404
 * when it is not the caller's); any other name is the caller's agent with that name, created on
 * first use. Per-user agents, because a run with a user_id must use an agent of that end-user's scope.
 */
export async function agentByName(client: PlatformClient, agent: string): Promise<number> {
  if (/^\d+$/.test(agent)) return Number(agent);
  for await (const each of client.agents.list({ limit: 100 })) {
    if (each.name === agent) return each.id;
  }
  const created = await client.agents.create({ name: agent, default_permission_mode: "approval" });
  return created.id;
}
