// Calls to custom tool servers: the headers of a server's auth type, an end-user's OAuth access token
// (refreshed when due), a rest_api tool's HTTP request, and the endpoint an MCP call needs. Every
// request goes through the outbound guard. Secrets and tokens never enter a log line or a result.
import { logger } from "@/lib/logger";
import type { Db } from "../../repositories/db";
import type { PlatformConfig } from "../../platform-config";
import { guardedFetch, OutboundError, type OutboundOptions } from "../../outbound/guarded-fetch";
import * as servers from "../../repositories/tool-servers";
import type { ToolServerRow } from "../../repositories/tool-servers";
import type { McpEndpoint } from "../../tool-servers/mcp-client";
import { accessTokenState } from "../../outbound/oauth-client";
import { refreshServerOAuth, type OAuthClientState, type OAuthTokens } from "../../tool-servers/server-oauth";
import { openSecret, sealSecret } from "../sealed-secrets";

export interface ToolServerCallContext {
  prisma: Db;
  config: PlatformConfig;
}

/** The outbound rules of every call to a tool server (and its OAuth endpoints). */
export function toolServerOutbound(config: PlatformConfig): OutboundOptions {
  const loopback = config.outboundAllowLoopback === true;
  return { allowLoopback: loopback, allowHttp: loopback, timeoutMs: 30_000, maxResponseBytes: 256 * 1024 };
}

export const secretOf = (config: PlatformConfig, row: { secretSealed: string | null }) =>
  row.secretSealed === null ? undefined : openSecret(config, row.secretSealed).value;

/** The headers of the static auth types (bearer, api_key, basic); none for none and oauth2. */
export function staticAuthHeaders(config: PlatformConfig, row: ToolServerRow): Record<string, string> {
  const authConfig = (row.authConfig ?? {}) as Record<string, string | undefined>;
  const secret = secretOf(config, row) ?? "";
  switch (row.authType) {
    case "bearer":
      return { authorization: `Bearer ${secret}` };
    case "api_key":
      return { [authConfig.header!]: `${authConfig.prefix ?? ""}${secret}` };
    case "basic":
      return { authorization: `Basic ${Buffer.from(`${authConfig.username ?? ""}:${secret}`).toString("base64")}` };
    default:
      return {};
  }
}

export const sealTokens = (config: PlatformConfig, tokens: OAuthTokens) => sealSecret(config, JSON.stringify(tokens));
export const sealClient = (config: PlatformConfig, client: OAuthClientState) => sealSecret(config, JSON.stringify(client));
const openJson = <T>(config: PlatformConfig, sealed: string) => JSON.parse(openSecret(config, sealed).value) as T;
export const openClient = (config: PlatformConfig, sealed: string) => openJson<OAuthClientState>(config, sealed);

export type AccessTokenResult = { ok: true; accessToken: string } | { ok: false; error: string };

/**
 * The access token of the scope's grant on an oauth2 server (end-user id null: the account level's
 * grant), refreshed first when it expires within a minute and there is a refresh token; without one,
 * used until it expires. A failed refresh leaves the current token in use until it expires; then the
 * person is asked to connect again.
 */
export async function accessTokenFor(ctx: ToolServerCallContext, row: ToolServerRow, endUserId: number | null): Promise<AccessTokenResult> {
  const connect = `connect it first: POST /mcp-servers/${row.id}/oauth/start${endUserId === null ? "" : " with this user_id"}, then oauth/complete`;
  const grant = await servers.findGrant(ctx.prisma, row.id, endUserId);
  if (!grant) return { ok: false, error: `${row.name} needs this person's authorization; ${connect}` };
  const tokens = openJson<OAuthTokens>(ctx.config, grant.tokensSealed);
  const state = accessTokenState(tokens.expiresAt, tokens.refreshToken !== undefined);
  if (state === "valid") return { ok: true, accessToken: tokens.accessToken };
  if (state === "expired" || !tokens.refreshToken) return { ok: false, error: `${row.name}: the authorization expired; ${connect}` };
  try {
    const fresh = await refreshServerOAuth({ client: openClient(ctx.config, grant.clientSealed), refreshToken: tokens.refreshToken, outbound: toolServerOutbound(ctx.config) });
    // A refresh answer without a new refresh token keeps the old one (RFC 6749 §6).
    const kept: OAuthTokens = { ...fresh, refreshToken: fresh.refreshToken ?? tokens.refreshToken };
    await servers.updateGrant(ctx.prisma, grant.id, { tokensSealed: sealTokens(ctx.config, kept), expiresAt: kept.expiresAt ? new Date(kept.expiresAt) : null });
    return { ok: true, accessToken: kept.accessToken };
  } catch (error) {
    logger.warn({ serverId: row.id, err: error instanceof Error ? error.message : String(error) }, "tool server token refresh failed");
    // Refreshed early: the token it would have replaced still works until it expires.
    if (tokens.expiresAt !== undefined && tokens.expiresAt > Date.now()) return { ok: true, accessToken: tokens.accessToken };
    return { ok: false, error: `${row.name}: the authorization could not be renewed; ${connect}` };
  }
}

/** Where an MCP call goes, with the server's static headers or the scope's access token. */
export async function mcpEndpointFor(
  ctx: ToolServerCallContext,
  row: ToolServerRow,
  endUserId: number | null,
): Promise<{ ok: true; endpoint: McpEndpoint } | { ok: false; error: string }> {
  let accessToken: string | undefined;
  if (row.authType === "oauth2") {
    const token = await accessTokenFor(ctx, row, endUserId);
    if (!token.ok) return token;
    accessToken = token.accessToken;
  }
  return {
    ok: true,
    endpoint: {
      url: row.url,
      kind: row.kind as McpEndpoint["kind"],
      headers: staticAuthHeaders(ctx.config, row),
      ...(accessToken ? { accessToken } : {}),
      outbound: toolServerOutbound(ctx.config),
    },
  };
}

export interface RestToolDefinition {
  name: string;
  method: string;
  path: string;
}

export type RestCallOutcome =
  | { ok: true; status: number; data: unknown; truncated?: boolean }
  | { ok: false; error: string; status?: number; body?: unknown };

function parseBody(text: string, contentType: string | undefined): unknown {
  if (text === "") return null;
  if (contentType?.includes("json") || /^\s*[[{]/.test(text)) {
    try {
      return JSON.parse(text);
    } catch {
      // not JSON after all: the text
    }
  }
  return text;
}

const queryValue = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));

/**
 * One rest_api tool call: `{name}` segments of the path from the arguments of that name, the other
 * arguments as the query string (GET, DELETE) or a JSON body (POST, PUT, PATCH). A 4xx or 5xx answer
 * is the model's to read as an error, with the status and body.
 */
export async function callRestTool(
  ctx: ToolServerCallContext,
  row: ToolServerRow,
  definition: RestToolDefinition,
  args: Record<string, unknown>,
  endUserId: number | null,
): Promise<RestCallOutcome> {
  const rest = { ...args };
  const missing: string[] = [];
  const path = definition.path.replace(/\{([^}/]+)\}/g, (_match, name: string) => {
    const value = rest[name];
    delete rest[name];
    if (value === undefined || value === null || value === "") {
      missing.push(name);
      return "";
    }
    return encodeURIComponent(queryValue(value));
  });
  if (missing.length > 0) return { ok: false, error: `missing argument${missing.length > 1 ? "s" : ""} ${missing.join(", ")} (part of the path)` };
  const url = new URL(`${row.url.replace(/\/+$/, "")}${path}`);
  const method = definition.method.toUpperCase();
  const withBody = method !== "GET" && method !== "DELETE";
  if (!withBody) {
    for (const [name, value] of Object.entries(rest)) {
      if (value === undefined || value === null) continue;
      for (const item of Array.isArray(value) ? value : [value]) url.searchParams.append(name, queryValue(item));
    }
  }
  const headers: Record<string, string> = { accept: "application/json", ...staticAuthHeaders(ctx.config, row) };
  if (row.authType === "oauth2") {
    const token = await accessTokenFor(ctx, row, endUserId);
    if (!token.ok) return { ok: false, error: token.error };
    headers.authorization = `Bearer ${token.accessToken}`;
  }
  if (withBody) headers["content-type"] = "application/json";
  let response;
  try {
    response = await guardedFetch(url.toString(), { method, headers, ...(withBody ? { body: JSON.stringify(rest) } : {}) }, toolServerOutbound(ctx.config));
  } catch (error) {
    if (error instanceof OutboundError) return { ok: false, error: `${row.name}: ${error.message}` };
    throw error;
  }
  const body = parseBody(response.body, response.headers["content-type"]);
  if (response.status >= 400) return { ok: false, error: `${row.name} answered HTTP ${response.status}`, status: response.status, body };
  return { ok: true, status: response.status, data: body, ...(response.truncated ? { truncated: true } : {}) };
}
