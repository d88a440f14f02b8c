// The chat app's directory (GET /apps/<app>/channels, members, workspaces): read from the chat API
// with the account-level connections of that app, one per workspace. Only apps whose API is the
// chat app's (the built-in `chat`, Slack Web API shapes) have one.
import type { z } from "zod";
import type { ChatChannel, ChatMember, ChatWorkspace } from "@inlay/core/schemas/apps";
import { PlatformError } from "../../errors";
import { guardedFetch } from "../../outbound/guarded-fetch";
import * as connections from "../../repositories/app-connections";
import type { ConnectionRow } from "../../repositories/app-connections";
import { authorizationFor } from "./app-credentials";
import { appOf, featureNotAvailable, type AppServiceContext } from "./apps";
import type { AuthContext } from "../account/auth";
import { resolveScope } from "../scope";

/** The built-in team-chat app (agents' chat channels are made in its workspace). */
export const CHAT_APP = "chat";
const CHAT_APPS = new Set([CHAT_APP]);

function chatApp(ctx: AppServiceContext, slug: string) {
  const app = appOf(ctx.config, slug);
  if (!CHAT_APPS.has(app.slug)) throw featureNotAvailable(`/apps/${slug}/channels, members and workspaces`, `${slug} is not a team chat app (the chat app is)`);
  return app;
}

async function accountConnections(ctx: AppServiceContext, auth: AuthContext, slug: string): Promise<ConnectionRow[]> {
  const scope = await resolveScope(ctx, auth, undefined);
  return connections.listConnections(ctx.prisma, scope, { app: slug });
}

const teamOf = (row: ConnectionRow) => {
  const options = (row.options ?? {}) as Record<string, unknown>;
  return { teamId: typeof options.team_id === "string" ? options.team_id : null, name: typeof options.team === "string" ? options.team : null };
};

export async function chatWorkspaces(ctx: AppServiceContext, auth: AuthContext, slug: string): Promise<z.infer<typeof ChatWorkspace>[]> {
  chatApp(ctx, slug);
  return (await accountConnections(ctx, auth, slug)).map((row) => {
    const team = teamOf(row);
    return { team_id: team.teamId, name: team.name ?? row.accountLabel, connection_id: row.id, status: row.status as z.infer<typeof ChatWorkspace>["status"] };
  });
}

export async function deleteChatWorkspace(ctx: AppServiceContext, auth: AuthContext, slug: string, teamId: string) {
  chatApp(ctx, slug);
  const rows = (await accountConnections(ctx, auth, slug)).filter((row) => teamOf(row).teamId === teamId);
  if (rows.length === 0) throw new PlatformError({ type: "not_found", message: `workspace ${teamId} not found` });
  for (const row of rows) await connections.deleteConnection(ctx.prisma, row.id);
}

async function activeConnections(ctx: AppServiceContext, auth: AuthContext, slug: string): Promise<ConnectionRow[]> {
  chatApp(ctx, slug);
  const rows = (await accountConnections(ctx, auth, slug)).filter((row) => row.status === "active");
  if (rows.length === 0) {
    throw new PlatformError({ type: "validation_error", errorCode: "app_not_connected", message: `${slug} has no active account-level connection: connect it without user_id first` });
  }
  return rows;
}

/**
 * One call of a Slack-shaped method through the connection: its body when it answered ok, with `field`
 * of the `shape` asked; null when the connection cannot be used; a 502 app_request_failed otherwise
 * (`refusals` maps the app's error codes the caller turns into errors of its own).
 */
async function callChat(
  ctx: AppServiceContext,
  slug: string,
  row: ConnectionRow,
  method: string,
  request: { query?: string; body?: Record<string, unknown> },
  expect: { field: string; shape: "array" | "object" },
  refusals: Record<string, () => PlatformError> = {},
): Promise<Record<string, unknown> | null> {
  const authorization = await authorizationFor(ctx, row.id);
  if (!authorization.ok) return null;
  const allow = ctx.config.outboundAllowLoopback === true;
  const init =
    request.body === undefined
      ? { method: "GET", headers: { accept: "application/json", ...authorization.headers } }
      : { method: "POST", headers: { accept: "application/json", "content-type": "application/json; charset=utf-8", ...authorization.headers }, body: JSON.stringify(request.body) };
  const response = await guardedFetch(`${authorization.baseUrl}${method}${request.query ?? ""}`, init, { allowHttp: allow, allowLoopback: allow, maxResponseBytes: 1024 * 1024 });
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(response.body) as Record<string, unknown>;
  } catch {
    // not JSON: refused below
  }
  const refusal = typeof body.error === "string" ? refusals[body.error] : undefined;
  if (refusal) throw refusal();
  const value = body[expect.field];
  const fits = expect.shape === "array" ? Array.isArray(value) : typeof value === "object" && value !== null && !Array.isArray(value);
  if (response.status !== 200 || body.ok === false || !fits) {
    throw new PlatformError({ type: "api_error", status: 502, errorCode: "app_request_failed", message: `${slug} answered ${response.status}${typeof body.error === "string" ? ` ${body.error}` : ""} to ${method}` });
  }
  return body;
}

/** One page of a Slack-shaped list method from every active workspace connection. */
async function listFromWorkspaces<T>(ctx: AppServiceContext, auth: AuthContext, slug: string, method: string, field: string, map: (item: Record<string, unknown>, teamId: string | null) => T): Promise<T[]> {
  const out: T[] = [];
  for (const row of await activeConnections(ctx, auth, slug)) {
    const body = await callChat(ctx, slug, row, method, { query: "?limit=200" }, { field, shape: "array" });
    if (!body) continue;
    for (const item of body[field] as Record<string, unknown>[]) out.push(map(item, teamOf(row).teamId));
  }
  return out;
}

/**
 * Creates a public channel named `name` (Slack's conversations.create) in the account's chat workspace
 * (the newest active connection's, when there are several): its id, name and team. A name the
 * workspace has already is a 409 chat_channel_name_taken.
 */
export async function createChatChannel(ctx: AppServiceContext, auth: AuthContext, slug: string, name: string): Promise<z.infer<typeof ChatChannel>> {
  for (const row of await activeConnections(ctx, auth, slug)) {
    const body = await callChat(ctx, slug, row, "/conversations.create", { body: { name, is_private: false } }, { field: "channel", shape: "object" }, {
      name_taken: () =>
        new PlatformError({ type: "conflict_error", errorCode: "chat_channel_name_taken", message: `the chat workspace has a channel named #${name} already; rename the agent or bind that channel with PATCH /agents/{id} chat_channels` }),
    });
    if (!body) continue;
    const channel = body.channel as Record<string, unknown>;
    return { id: String(channel.id), name: str(channel.name) ?? name, is_private: bool(channel.is_private) ?? false, team_id: teamOf(row).teamId };
  }
  throw new PlatformError({ type: "validation_error", errorCode: "app_not_connected", message: `${slug}'s account-level connection needs to be connected again` });
}

const str = (value: unknown) => (typeof value === "string" ? value : null);
const bool = (value: unknown) => (typeof value === "boolean" ? value : null);

export const chatChannels = (ctx: AppServiceContext, auth: AuthContext, slug: string): Promise<z.infer<typeof ChatChannel>[]> =>
  listFromWorkspaces(ctx, auth, slug, "/conversations.list", "channels", (item, teamId) => ({ id: String(item.id), name: str(item.name), is_private: bool(item.is_private), team_id: teamId }));

export const chatMembers = (ctx: AppServiceContext, auth: AuthContext, slug: string): Promise<z.infer<typeof ChatMember>[]> =>
  listFromWorkspaces(ctx, auth, slug, "/users.list", "members", (item, teamId) => ({
    id: String(item.id),
    name: str(item.name),
    real_name: str(item.real_name),
    is_bot: bool(item.is_bot),
    team_id: str(item.team_id) ?? teamId,
  }));
