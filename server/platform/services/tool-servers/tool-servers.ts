// Custom tool servers (/mcp-servers): registration, checks per kind and auth type, status and
// approval, and the per-end-user OAuth of servers with auth_type oauth2. A server belongs to one scope
// (an end-user's, or account-level); any other scope's id is not found, except that OAuth is started
// by the end-users who use an account-level server. Secrets and script sources are sealed and never
// returned. docs/platform-api.md, "Custom tool servers", records the choices the spec left open.
import { randomBytes } from "node:crypto";
import type { z } from "zod";
import { logger } from "@/lib/logger";
import type { Page } from "@inlay/core/schemas/common";
import {
  type CreateToolServerRequest,
  RestToolDef,
  SCRIPT_ALLOWLIST_MAX,
  ScriptToolDef,
  TOOL_NAME_PATTERN,
  type ToolServer,
  type ToolServerAuthType,
  type ToolServerKind,
  type ToolServerOAuthCompleteRequest,
  type ToolServerOAuthStartRequest,
  type UpdateToolServerRequest,
} from "@inlay/core/schemas/tool-servers";
import type { JsonArray, JsonObject } from "../../repositories/db";
import type { PlatformConfig } from "../../platform-config";
import { PlatformError } from "../../errors";
import { OutboundError } from "../../outbound/guarded-fetch";
import { checkUserUrl } from "../../outbound/user-url";
import * as servers from "../../repositories/tool-servers";
import type { ToolServerFlowRow, ToolServerRow } from "../../repositories/tool-servers";
import type { DataContext } from "../../infrastructure/hot-cache";
import { listMcpTools } from "../../tool-servers/mcp-client";
import { SANDBOX_BUSY, sandboxScope, type ScriptSandbox } from "../../tool-servers/script-sandbox";
import { completeServerOAuth, startServerOAuth } from "../../tool-servers/server-oauth";
import { type RemoteTool, ToolServerError } from "../../tool-servers/types";
import { openSecret, sealSecret } from "../sealed-secrets";
import { checkRedirectUri } from "../apps/apps";
import type { AuthContext } from "../account/auth";
import { resolveScope, type Scope } from "../scope";
import { mcpEndpointFor, openClient, sealClient, sealTokens, secretOf, toolServerOutbound } from "./tool-server-calls";
import { sha256Hex } from "@/server/shared/secret-box";

export type ToolServerServiceContext = DataContext & { config: PlatformConfig; scriptSandbox(): ScriptSandbox };

type ToolServerOut = z.infer<typeof ToolServer>;

/** How long an OAuth authorization of a tool server waits for the browser to come back. */
export const TOOL_SERVER_OAUTH_TTL_MS = 10 * 60_000;
export const TOOL_SERVER_OAUTH_CALLBACK_PATH = "/mcp-servers/oauth/callback";

const SEPARATOR = "__";
/** The name a run's model calls a server's tool by; the prefix keeps it apart from built-ins and apps. */
export const serverToolName = (serverId: number, tool: string) => `srv${serverId}${SEPARATOR}${tool}`;


// --- Errors ---------------------------------------------------------------------------------------

const fieldError = (field: string, message: string, errorCode?: string) =>
  new PlatformError({ type: "validation_error", errorCode, message: `${field}: ${message}`, details: { fields: [{ field, message }] } });

const notFound = (id: number) => new PlatformError({ type: "not_found", message: `tool server ${id} not found` });

const disabled = (id: number) =>
  new PlatformError({
    type: "conflict_error",
    errorCode: "tool_server_disabled",
    message: `tool server ${id} is disabled; PATCH it with status=pending first`,
  });

// --- The resource ---------------------------------------------------------------------------------

interface ToolDescriptor {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** rest_api only. */
  method?: string;
  path?: string;
}

const EMPTY_OBJECT_SCHEMA = { type: "object", properties: {} } as const;

/** The tools a server offers runs (once approved): its tool_defs, or what its MCP server listed. */
export function toolsOf(row: Pick<ToolServerRow, "kind" | "toolDefs" | "discoveredTools">): ToolDescriptor[] {
  const defs = (row.toolDefs ?? []) as unknown[];
  if (row.kind === "rest_api") {
    return (defs as z.infer<typeof RestToolDef>[]).map((def) => ({
      name: def.name,
      description: def.description ?? `${def.method} ${def.path}`,
      inputSchema: def.parameters ?? { ...EMPTY_OBJECT_SCHEMA, additionalProperties: true },
      method: def.method,
      path: def.path,
    }));
  }
  if (row.kind === "script") {
    return defs.map((def) => {
      const entry = typeof def === "string" ? { name: def } : (def as { name: string; description?: string; parameters?: Record<string, unknown> });
      return {
        name: entry.name,
        description: entry.description ?? `The script's ${entry.name} function`,
        inputSchema: entry.parameters ?? { ...EMPTY_OBJECT_SCHEMA, additionalProperties: true },
      };
    });
  }
  // Providers want an object schema; a server that listed none (or no type) gets one.
  return ((row.discoveredTools ?? []) as unknown as RemoteTool[]).map((tool) => ({
    name: tool.name,
    description: tool.description ?? "",
    inputSchema: { ...EMPTY_OBJECT_SCHEMA, ...(tool.inputSchema ?? {}), type: "object" },
  }));
}

export function toToolServer(row: ToolServerRow): ToolServerOut {
  return {
    id: row.id,
    name: row.name,
    url: row.url,
    kind: row.kind as ToolServerKind,
    auth_type: row.authType as ToolServerAuthType,
    auth_config: (row.authConfig ?? {}) as Record<string, unknown>,
    has_secret: row.secretSealed !== null,
    tool_defs: (row.toolDefs ?? []) as unknown[],
    tools: toolsOf(row).map((tool) => ({ name: tool.name, run_name: serverToolName(row.id, tool.name), description: tool.description })),
    description: row.description,
    user_id: row.endUser?.externalId ?? null,
    status: row.status as ToolServerOut["status"],
    auto_approve: row.autoApprove,
    script_sha256: row.kind === "script" ? row.scriptSha256 : null,
    script_allowlist: row.scriptAllowlist,
    last_error: row.lastError,
    approved_at: row.approvedAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

// --- Checks ---------------------------------------------------------------------------------------

const loopbackAllowed = (config: PlatformConfig) => config.outboundAllowLoopback === true;


/** The one rule for URLs users supply (outbound/user-url.ts), as a field's 422. */
function checkUrl(config: PlatformConfig, field: string, url: string): URL {
  try {
    return checkUserUrl(url, { allowLoopback: loopbackAllowed(config) });
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    throw fieldError(field, error.message, "invalid_url");
  }
}

function checkAllowlist(config: PlatformConfig, origins: string[]): string[] {
  const normalized: string[] = [];
  origins.forEach((origin, index) => {
    const field = `script_allowlist.${index}`;
    const url = checkUrl(config, field, origin);
    if (origin.replace(/\/$/, "") !== url.origin) {
      throw fieldError(field, `must be an origin only (scheme, host and port, no path, query or user), e.g. ${url.origin}`);
    }
    if (!normalized.includes(url.origin)) normalized.push(url.origin);
  });
  if (normalized.length > SCRIPT_ALLOWLIST_MAX) throw fieldError("script_allowlist", `must have at most ${SCRIPT_ALLOWLIST_MAX} origins`);
  return normalized;
}

function parseEach<T>(field: string, entries: unknown[], schema: z.ZodType<T>): T[] {
  return entries.map((entry, index) => {
    const parsed = schema.safeParse(entry);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0]!;
    throw fieldError([field, index, ...issue.path].join("."), issue.message);
  });
}

function checkToolDefs(kind: ToolServerKind, defs: unknown[]): unknown[] {
  if (kind === "mcp_http" || kind === "mcp_sse") {
    if (defs.length > 0) throw fieldError("tool_defs", "must be empty for MCP servers (their tools are listed by the server at approval)");
    return [];
  }
  const parsed = kind === "rest_api" ? parseEach("tool_defs", defs, RestToolDef) : parseEach("tool_defs", defs, ScriptToolDef);
  const names = parsed.map((def) => (typeof def === "string" ? def : def.name));
  const duplicate = names.find((name, index) => names.indexOf(name) !== index);
  if (duplicate !== undefined) throw fieldError("tool_defs", `names the tool ${duplicate} twice`);
  return parsed;
}

const AUTH_CONFIG_KEYS: Record<ToolServerAuthType, readonly string[]> = {
  none: [],
  bearer: [],
  api_key: ["header", "prefix"],
  basic: ["username"],
  oauth2: ["authorization_url", "token_url", "client_id", "scopes", "token_endpoint_auth_method"],
};

/** How the platform authenticates its client at the token endpoint (server-oauth.ts knows these three). */
const TOKEN_ENDPOINT_AUTH_METHODS = ["client_secret_basic", "client_secret_post", "none"] as const;

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/;

const stringField = (config: Record<string, unknown>, key: string, required: boolean): string | undefined => {
  const value = config[key];
  if (value === undefined && !required) return undefined;
  if (typeof value !== "string" || value.trim() === "") throw fieldError(`auth_config.${key}`, required ? "is required (a non-empty string)" : "must be a non-empty string");
  return value.trim();
};

/** auth_config as stored for the auth type, or a 422 naming what is missing or not used. */
function checkAuth(
  config: PlatformConfig,
  kind: ToolServerKind,
  authType: ToolServerAuthType,
  authConfig: Record<string, unknown>,
  hasSecret: boolean,
): Record<string, unknown> {
  if (kind === "script" && authType !== "none") {
    throw fieldError("auth_type", "must be none for script servers (a script's http sends what the script writes)");
  }
  const allowed = AUTH_CONFIG_KEYS[authType];
  for (const key of Object.keys(authConfig)) {
    if (!allowed.includes(key)) throw fieldError(`auth_config.${key}`, `is not used by auth_type ${authType}${allowed.length ? ` (it takes ${allowed.join(", ")})` : ""}`);
  }
  switch (authType) {
    case "none":
      return {};
    case "bearer":
      if (!hasSecret) throw fieldError("secret", "is required for auth_type bearer (the token)");
      return {};
    case "api_key": {
      const header = stringField(authConfig, "header", true)!;
      if (!HEADER_NAME.test(header)) throw fieldError("auth_config.header", "must be an HTTP header name");
      const prefix = authConfig.prefix;
      if (prefix !== undefined && typeof prefix !== "string") throw fieldError("auth_config.prefix", "must be a string");
      if (!hasSecret) throw fieldError("secret", "is required for auth_type api_key (the key sent in auth_config.header)");
      return { header, ...(prefix ? { prefix } : {}) };
    }
    case "basic":
      return { username: stringField(authConfig, "username", true)! };
    case "oauth2": {
      const scopes = authConfig.scopes;
      if (scopes !== undefined && (!Array.isArray(scopes) || scopes.some((scope) => typeof scope !== "string" || scope.trim() === ""))) {
        throw fieldError("auth_config.scopes", "must be an array of non-empty strings");
      }
      const rest = kind === "rest_api";
      const out: Record<string, unknown> = {};
      for (const key of ["authorization_url", "token_url"] as const) {
        if (!rest && authConfig[key] !== undefined) throw fieldError(`auth_config.${key}`, "is discovered from MCP servers; do not give it");
        if (rest) out[key] = checkUrl(config, `auth_config.${key}`, stringField(authConfig, key, true)!).toString();
      }
      const clientId = stringField(authConfig, "client_id", rest);
      if (clientId) out.client_id = clientId;
      if (scopes) out.scopes = scopes;
      const method = stringField(authConfig, "token_endpoint_auth_method", false);
      if (method !== undefined) {
        if (!(TOKEN_ENDPOINT_AUTH_METHODS as readonly string[]).includes(method)) {
          throw fieldError("auth_config.token_endpoint_auth_method", `must be one of ${TOKEN_ENDPOINT_AUTH_METHODS.join(", ")}`);
        }
        // Dynamically registered clients get the method the registration grants.
        if (!rest && !clientId) throw fieldError("auth_config.token_endpoint_auth_method", "needs auth_config.client_id (a registered client)");
        if (method !== "none" && !hasSecret) throw fieldError("secret", `is required for token_endpoint_auth_method ${method} (the client secret)`);
        out.token_endpoint_auth_method = method;
      }
      return out;
    }
  }
}

const scriptFieldsOnly = (field: string) => fieldError(field, "is only for script servers");

const invalidScript = (problem: string) => fieldError("script_source", problem, "tool_server_invalid_script");

/**
 * The sandbox's check that a script defines one function per tool name taking keyword arguments: what
 * is wrong, or null. The spec makes it a condition of creating (and so of changing) a script server;
 * approve runs it again for rows stored before that.
 */
async function scriptProblem(ctx: ToolServerServiceContext, accountId: number, source: string, toolDefs: unknown[]): Promise<string | null> {
  const names = toolsOf({ kind: "script", toolDefs: toolDefs as JsonArray, discoveredTools: null }).map((tool) => tool.name);
  const verdict = await ctx.scriptSandbox().check(source, names, sandboxScope(accountId, null));
  if (verdict.ok) return null;
  // The account's share of the sandbox is in use (its own calls): a retry later, not a fault of the script.
  if (verdict.error.startsWith(SANDBOX_BUSY)) {
    throw new PlatformError({ type: "rate_limit_error", errorCode: "script_sandbox_busy", message: verdict.error, headers: { "retry-after": "5" } });
  }
  return verdict.error;
}

// --- CRUD -----------------------------------------------------------------------------------------

async function load(ctx: ToolServerServiceContext, scope: Scope, id: number): Promise<ToolServerRow> {
  const row = await servers.findToolServer(ctx.prisma, scope, id);
  if (!row) throw notFound(id);
  return row;
}

export async function createToolServer(
  ctx: ToolServerServiceContext,
  auth: AuthContext,
  userId: string | undefined,
  input: z.infer<typeof CreateToolServerRequest>,
): Promise<ToolServerOut> {
  const { kind } = input;
  const script = kind === "script";
  if (script && userId !== undefined) throw fieldError("user_id", "is not allowed for script servers: scripts are account-level", "user_id_not_allowed");
  if (script && input.script_source === undefined) throw fieldError("script_source", "is required for script servers");
  if (!script && input.script_source !== undefined) throw scriptFieldsOnly("script_source");
  if (!script && input.script_allowlist !== undefined) throw scriptFieldsOnly("script_allowlist");
  if (script && input.secret !== undefined) throw fieldError("secret", "is not used by script servers");
  const url = checkUrl(ctx.config, "url", input.url).toString();
  const authConfig = checkAuth(ctx.config, kind, input.auth_type, input.auth_config ?? {}, input.secret !== undefined);
  const toolDefs = checkToolDefs(kind, input.tool_defs ?? []);
  const allowlist = script ? checkAllowlist(ctx.config, input.script_allowlist ?? []) : [];
  if (script) {
    const problem = await scriptProblem(ctx, auth.accountId, input.script_source!, toolDefs);
    if (problem !== null) throw invalidScript(problem);
  }
  // Strict mode covers tool servers, but scripts cannot have a user_id: they stay creatable.
  const scope = await resolveScope(ctx, auth, userId, { strict: !script });
  const row = await servers.insertToolServer(ctx.prisma, scope, {
    name: input.name,
    url,
    kind,
    authType: input.auth_type,
    authConfig: authConfig as JsonObject,
    secretSealed: input.secret === undefined ? null : sealSecret(ctx.config, input.secret),
    toolDefs: toolDefs as JsonArray,
    description: input.description ?? null,
    autoApprove: input.auto_approve ?? false,
    ...(script
      ? { scriptSourceSealed: sealSecret(ctx.config, input.script_source!), scriptSha256: sha256Hex(input.script_source!), scriptAllowlist: allowlist }
      : {}),
  });
  return toToolServer(row);
}

export async function listToolServers(ctx: ToolServerServiceContext, auth: AuthContext, userId: string | undefined): Promise<Page<ToolServerOut>> {
  const scope = await resolveScope(ctx, auth, userId, { strict: true });
  return { data: (await servers.listToolServers(ctx.prisma, scope)).map(toToolServer), has_more: false };
}

export async function getToolServer(ctx: ToolServerServiceContext, auth: AuthContext, userId: string | undefined, id: number) {
  return toToolServer(await load(ctx, await resolveScope(ctx, auth, userId), id));
}

/** JSON with object keys sorted: jsonb does not keep the order the keys were written in. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, inner]) => inner !== undefined);
    return `{${entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([key, inner]) => `${JSON.stringify(key)}:${canonical(inner)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

const sameJson = (a: unknown, b: unknown) => canonical(a) === canonical(b);

export async function updateToolServer(
  ctx: ToolServerServiceContext,
  auth: AuthContext,
  userId: string | undefined,
  id: number,
  input: z.infer<typeof UpdateToolServerRequest>,
): Promise<ToolServerOut> {
  const current = await load(ctx, await resolveScope(ctx, auth, userId), id);
  const kind = current.kind as ToolServerKind;
  const script = kind === "script";
  if (!script && input.script_source !== undefined) throw scriptFieldsOnly("script_source");
  if (!script && input.script_allowlist !== undefined) throw scriptFieldsOnly("script_allowlist");
  if (script && input.secret) throw fieldError("secret", "is not used by script servers");

  const url = input.url === undefined ? current.url : checkUrl(ctx.config, "url", input.url).toString();
  const authType = input.auth_type ?? (current.authType as ToolServerAuthType);
  const authTypeChanged = authType !== current.authType;
  // A new auth type starts from an empty auth_config unless one is given.
  const givenConfig = input.auth_config ?? (authTypeChanged ? {} : ((current.authConfig ?? {}) as Record<string, unknown>));
  const hasSecret = input.secret === undefined ? current.secretSealed !== null : input.secret !== null;
  const authConfig = checkAuth(ctx.config, kind, authType, givenConfig, hasSecret);
  const toolDefs = input.tool_defs === undefined ? ((current.toolDefs ?? []) as unknown[]) : checkToolDefs(kind, input.tool_defs);
  const allowlist = input.script_allowlist === undefined ? current.scriptAllowlist : checkAllowlist(ctx.config, input.script_allowlist);
  const scriptSha = input.script_source === undefined ? current.scriptSha256 : sha256Hex(input.script_source);
  if (script && (input.script_source !== undefined || input.tool_defs !== undefined)) {
    const source = input.script_source ?? openSecret(ctx.config, current.scriptSourceSealed!).value;
    const problem = await scriptProblem(ctx, current.accountId, source, toolDefs);
    if (problem !== null) throw invalidScript(problem);
  }

  // What the approval looked at changed: the server is checked again before runs see it.
  const reviewed =
    url !== current.url ||
    authTypeChanged ||
    !sameJson(authConfig, current.authConfig ?? {}) ||
    !sameJson(toolDefs, current.toolDefs ?? []) ||
    scriptSha !== current.scriptSha256 ||
    !sameJson(allowlist, current.scriptAllowlist);
  let status = current.status;
  if (reviewed && status === "approved") status = "pending";
  if (input.status !== undefined) status = input.status;
  // Replacing the script or what it may reach asks for approval of each call again, unless this request says otherwise.
  const scriptReplaced = input.script_source !== undefined || input.script_allowlist !== undefined;
  const autoApprove = input.auto_approve ?? (scriptReplaced ? false : current.autoApprove);

  const row = await servers.updateToolServer(ctx.prisma, current.id, {
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.description !== undefined ? { description: input.description } : {}),
    url,
    authType,
    authConfig: authConfig as JsonObject,
    ...(input.secret !== undefined ? { secretSealed: input.secret === null ? null : sealSecret(ctx.config, input.secret) } : {}),
    toolDefs: toolDefs as JsonArray,
    ...(input.script_source !== undefined ? { scriptSourceSealed: sealSecret(ctx.config, input.script_source), scriptSha256: scriptSha } : {}),
    scriptAllowlist: allowlist,
    status,
    autoApprove,
    ...(status !== "approved" ? { approvedAt: null } : {}),
  });
  // Tokens granted for another endpoint or client are not sent to this one.
  if (current.authType === "oauth2" && (url !== current.url || authTypeChanged || !sameJson(authConfig, current.authConfig ?? {}))) {
    await servers.deleteGrantsOfServer(ctx.prisma, current.id);
  }
  return toToolServer(row);
}

export async function deleteToolServer(ctx: ToolServerServiceContext, auth: AuthContext, userId: string | undefined, id: number) {
  const scope = await resolveScope(ctx, auth, userId);
  if (!(await servers.deleteToolServer(ctx.prisma, scope, id))) throw notFound(id);
}

// --- Approval ---------------------------------------------------------------------------------------

const unusable = (reason: string, message: string) => new PlatformError({ type: "validation_error", errorCode: `tool_server_${reason}`, message });

/** The tools an MCP server lists now, as the approval stores them; names a run cannot carry are left out. */
async function discoverMcpTools(ctx: ToolServerServiceContext, row: ToolServerRow) {
  const endpoint = await mcpEndpointFor(ctx, row, row.endUserId);
  if (!endpoint.ok) {
    throw new PlatformError({
      type: "conflict_error",
      errorCode: "oauth_required",
      message: `tool server ${row.id} uses OAuth: run POST /mcp-servers/${row.id}/oauth/start${row.endUserId === null ? "" : " with its user_id"} and complete it, then approve again`,
    });
  }
  let listed: RemoteTool[];
  try {
    listed = await listMcpTools(endpoint.endpoint);
  } catch (error) {
    if (!(error instanceof ToolServerError)) throw error;
    if (error.reason === "auth_required") {
      throw new PlatformError({
        type: "conflict_error",
        errorCode: "oauth_required",
        message: `tool server ${row.id} asks for authorization: ${row.authType === "oauth2" ? `complete POST /mcp-servers/${row.id}/oauth/start` : "set auth_type oauth2 (or the secret it expects)"}, then approve again`,
      });
    }
    throw unusable(error.reason, `tool server ${row.id}: ${error.message}`);
  }
  const usable = listed.filter((tool) => TOOL_NAME_PATTERN.test(tool.name));
  const skipped = listed.filter((tool) => !TOOL_NAME_PATTERN.test(tool.name)).map((tool) => tool.name);
  return { tools: usable, note: skipped.length > 0 ? `left out tools whose names runs cannot carry: ${skipped.join(", ")}` : null };
}

/**
 * POST /mcp-servers/{id}/approve: checks the server and offers its tools to runs. rest_api: its
 * tool_defs (valid since written); script: the sandbox's check that every tool is a function; MCP:
 * lists the tools now (with the scope's OAuth grant when it uses OAuth) and keeps that list. Approving
 * an approved server checks it again (an MCP server's list is refreshed).
 */
export async function approveToolServer(ctx: ToolServerServiceContext, auth: AuthContext, userId: string | undefined, id: number) {
  const row = await load(ctx, await resolveScope(ctx, auth, userId), id);
  if (row.status === "disabled") throw disabled(id);
  const names = toolsOf(row).map((tool) => tool.name);
  let discovered: RemoteTool[] | undefined;
  let note: string | null = null;
  if (row.kind === "mcp_http" || row.kind === "mcp_sse") {
    try {
      ({ tools: discovered, note } = await discoverMcpTools(ctx, row));
    } catch (error) {
      if (error instanceof PlatformError) await servers.updateToolServer(ctx.prisma, row.id, { lastError: error.message.slice(0, 2_000) });
      throw error;
    }
  } else if (names.length === 0) {
    throw fieldError("tool_defs", "names no tool: give the server's tools before approving it", "tool_server_no_tools");
  } else if (row.kind === "script") {
    const problem = await scriptProblem(ctx, row.accountId, openSecret(ctx.config, row.scriptSourceSealed!).value, (row.toolDefs ?? []) as unknown[]);
    if (problem !== null) {
      await servers.updateToolServer(ctx.prisma, row.id, { lastError: problem.slice(0, 2_000) });
      throw invalidScript(problem);
    }
  }
  const approved = await servers.updateToolServer(ctx.prisma, row.id, {
    status: "approved",
    approvedAt: new Date(),
    lastError: note,
    ...(discovered ? { discoveredTools: discovered as unknown as JsonArray } : {}),
  });
  return toToolServer(approved);
}

// --- OAuth ----------------------------------------------------------------------------------------

/**
 * POST /mcp-servers/{id}/oauth/start: the authorization URL for the scope (an end-user of an
 * account-level server authorizes for themself). The authorization server sends the browser to
 * redirect_uri with code and state: the platform's own page by default, which completes by itself;
 * a caller's page then POSTs them to oauth/complete.
 */
export async function startToolServerOAuth(
  ctx: ToolServerServiceContext,
  auth: AuthContext,
  userId: string | undefined,
  id: number,
  input: z.infer<typeof ToolServerOAuthStartRequest>,
) {
  const scope = await resolveScope(ctx, auth, userId);
  const row = await servers.findUsableToolServer(ctx.prisma, scope, id);
  if (!row) throw notFound(id);
  if (row.authType !== "oauth2") {
    throw new PlatformError({
      type: "conflict_error",
      errorCode: "oauth_not_used",
      message: `tool server ${id} does not use OAuth (auth_type is ${row.authType})`,
    });
  }
  if (row.status === "disabled") throw disabled(id);
  const platformBase = ctx.config.publicBaseUrl;
  const redirectUri = input.redirect_uri ? checkRedirectUri(ctx.config, input.redirect_uri, platformBase) : `${platformBase}${TOOL_SERVER_OAUTH_CALLBACK_PATH}`;
  const state = randomBytes(32).toString("base64url");
  let started;
  try {
    started = await startServerOAuth({
      server: { kind: row.kind as "rest_api" | "mcp_http" | "mcp_sse", url: row.url, authConfig: (row.authConfig ?? {}) as Record<string, unknown>, clientSecret: secretOf(ctx.config, row) },
      redirectUri,
      state,
      outbound: toolServerOutbound(ctx.config),
    });
  } catch (error) {
    if (!(error instanceof ToolServerError)) throw error;
    throw unusable(error.reason, `tool server ${id}: ${error.message}`);
  }
  const expiresAt = new Date(Date.now() + TOOL_SERVER_OAUTH_TTL_MS);
  await servers.deleteExpiredFlows(ctx.prisma, row.id);
  await servers.insertFlow(ctx.prisma, {
    stateHash: sha256Hex(state),
    serverId: row.id,
    accountId: scope.accountId,
    endUserId: scope.endUserId,
    codeVerifierSealed: sealSecret(ctx.config, started.codeVerifier),
    clientSealed: sealClient(ctx.config, started.client),
    redirectUri,
    expiresAt,
  });
  return { authorization_url: started.authorizationUrl, state, redirect_uri: redirectUri, expires_at: expiresAt.toISOString() };
}

/** Exchanges the code of a flow taken once and stores the scope's grant. */
async function authorizeFlow(ctx: { prisma: ToolServerServiceContext["prisma"]; config: PlatformConfig }, flow: ToolServerFlowRow, code: string) {
  const client = openClient(ctx.config, flow.clientSealed);
  let tokens;
  try {
    tokens = await completeServerOAuth({
      client,
      code,
      codeVerifier: openSecret(ctx.config, flow.codeVerifierSealed).value,
      redirectUri: flow.redirectUri,
      outbound: toolServerOutbound(ctx.config),
    });
  } catch (error) {
    if (!(error instanceof ToolServerError)) throw error;
    logger.warn({ serverId: flow.serverId, reason: error.reason }, "tool server authorization failed at the code exchange");
    throw fieldError("code", `the authorization server refused it: ${error.message}`, "authorization_failed");
  }
  const expiresAt = tokens.expiresAt === undefined ? null : new Date(tokens.expiresAt);
  await servers.saveGrant(
    ctx.prisma,
    { serverId: flow.serverId, accountId: flow.accountId, endUserId: flow.endUserId },
    { tokensSealed: sealTokens(ctx.config, tokens), clientSealed: sealClient(ctx.config, client), expiresAt },
  );
  return expiresAt;
}

const invalidState = () => fieldError("state", "is unknown, already used, expired, or of another server or end-user; start again with oauth/start", "invalid_state");

export async function completeToolServerOAuth(
  ctx: ToolServerServiceContext,
  auth: AuthContext,
  userId: string | undefined,
  id: number,
  input: z.infer<typeof ToolServerOAuthCompleteRequest>,
) {
  const scope = await resolveScope(ctx, auth, userId);
  const row = await servers.findUsableToolServer(ctx.prisma, scope, id);
  if (!row) throw notFound(id);
  const stateHash = sha256Hex(input.state);
  // Checked before it is taken, so a caller of another scope cannot use up someone's flow.
  const pending = await servers.findFlowByState(ctx.prisma, stateHash);
  if (!pending || pending.serverId !== row.id || pending.accountId !== scope.accountId || pending.endUserId !== scope.endUserId) throw invalidState();
  const flow = await servers.consumeFlow(ctx.prisma, stateHash);
  if (!flow) throw invalidState();
  const expiresAt = await authorizeFlow(ctx, flow, input.code);
  return { server_id: row.id, user_id: scope.userId, connected: true as const, expires_at: expiresAt?.toISOString() ?? null };
}

/**
 * GET /mcp-servers/oauth/callback (public): the default redirect_uri. The state (single-use, bound to
 * the server and the scope) completes the flow; the answer is a short page for the person.
 */
export async function handleToolServerOAuthCallback(
  ctx: { prisma: ToolServerServiceContext["prisma"]; config: PlatformConfig },
  query: { code?: string; state?: string; error?: string; error_description?: string },
): Promise<{ ok: boolean; message: string }> {
  if (!query.state) return { ok: false, message: "The authorization came back without its state. Start again." };
  const flow = await servers.consumeFlow(ctx.prisma, sha256Hex(query.state));
  if (!flow) return { ok: false, message: "This authorization is unknown, already used or expired. Start again." };
  if (query.error) return { ok: false, message: `The authorization was refused: ${query.error}${query.error_description ? ` (${query.error_description})` : ""}`.slice(0, 500) };
  if (!query.code) return { ok: false, message: "The authorization server sent no code. Start again." };
  try {
    await authorizeFlow(ctx, flow, query.code);
  } catch (error) {
    if (error instanceof PlatformError) return { ok: false, message: error.message };
    throw error;
  }
  return { ok: true, message: "Connected. You can close this window." };
}
