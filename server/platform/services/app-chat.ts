// The chat app's directory (GET /apps/<app>/channels, members, workspaces): read from the chat API
// with the account-level connections of that app, one per workspace. Only apps whose API is the
// chat app's (the built-in `chat`, Slack Web API shapes) have one.
import type { z } from "zod";
import type { ChatChannel, ChatMember, ChatWorkspace } from "@/lib/schemas/apps";
import { PlatformError } from "../errors";
import { guardedFetch } from "../outbound/guarded-fetch";
import * as connections from "../repositories/app-connections";
import type { ConnectionRow } from "../repositories/app-connections";
import { authorizationFor } from "./app-credentials";
import { appOf, featureNotAvailable, type AppServiceContext } from "./apps";
import type { AuthContext } from "./auth";
import { resolveScope } from "./scope";

const CHAT_APPS = new Set(["chat"]);

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

/** One page of a Slack-shaped list method from every active workspace connection. */
async function listFromWorkspaces<T>(ctx: AppServiceContext, auth: AuthContext, slug: string, method: string, field: string, map: (item: Record<string, unknown>, teamId: string | null) => T): Promise<T[]> {
  chatApp(ctx, slug);
  const rows = (await accountConnections(ctx, auth, slug)).filter((row) => row.status === "active");
  if (rows.length === 0) {
    throw new PlatformError({ type: "validation_error", errorCode: "app_not_connected", message: `${slug} has no active account-level connection: connect it without user_id first` });
  }
  const allow = ctx.config.outboundAllowLoopback === true;
  const out: T[] = [];
  for (const row of rows) {
    const authorization = await authorizationFor(ctx, row.id);
    if (!authorization.ok) continue;
    const response = await guardedFetch(`${authorization.baseUrl}${method}?limit=200`, { method: "GET", headers: { accept: "application/json", ...authorization.headers } }, { allowHttp: allow, allowLoopback: allow, maxResponseBytes: 1024 * 1024 });
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(response.body) as Record<string, unknown>;
    } catch {
      // not JSON: nothing from this workspace
    }
    if (response.status !== 200 || body.ok === false || !Array.isArray(body[field])) {
      throw new PlatformError({ type: "api_error", status: 502, errorCode: "app_request_failed", message: `${slug} answered ${response.status}${typeof body.error === "string" ? ` ${body.error}` : ""} to ${method}` });
    }
    for (const item of body[field] as Record<string, unknown>[]) out.push(map(item, teamOf(row).teamId));
  }
  return out;
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
