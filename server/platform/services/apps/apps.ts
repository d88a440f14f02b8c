// Apps and connections (/apps): the catalogue as the scope sees it, OAuth connect flows (state kept
// hashed and single-use, PKCE S256, redirect_uri on an allow-list, the platform's own callback), API-key
// connections, and managing connections. A connection belongs to one scope (an end-user, or the account
// level); any other scope's id is not found. Credentials are sealed by app-credentials.ts and never
// returned. docs/platform-api.md, "Apps and connections", records the choices the spec left open.
import { randomBytes } from "node:crypto";
import type { z } from "zod";
import type { AppConnection, AppConnectionUpdated, ApiKeyRequest, CompleteRequest, ConnectRequest, UpdateConnectionRequest } from "@inlay/core/schemas/apps";
import { logger } from "@/lib/logger";
import { appCatalogOf } from "../../apps/catalog";
import type { AppDefinition } from "../../apps/definition";
import { appAuthorizationUrl, appOAuthTarget } from "../../apps/oauth-client";
import { exchangeCode, newCodeVerifier, OAuthError } from "../../outbound/oauth-client";
import type { PlatformConfig } from "../../platform-config";
import { PlatformError } from "../../errors";
import * as connections from "../../repositories/app-connections";
import type { ConnectionRow, FlowRow } from "../../repositories/app-connections";
import { agentExistsInScope } from "../../repositories/agents";
import { listIdentities } from "../../repositories/channel-identities";
import type { DataContext } from "../../infrastructure/hot-cache";
import { appForAccount, appUsable, CHANNEL_APPS, credentialsOfTokens, readIdentity, revokeAtApp, sealCredentials, type StoredCredentials } from "./app-credentials";
import { openSecret, sealSecret } from "../sealed-secrets";
import type { AuthContext } from "../account/auth";
import { resolveScope, type Scope } from "../scope";
import { sha256Hex } from "@/server/shared/secret-box";

export type AppServiceContext = DataContext & { config: PlatformConfig };
/**
 * Connecting also lets the runs that waited for the app go on. That is the runs' business
 * (app-run-pauses.ts), and runs sit above apps, so the caller passes it in.
 */
export type ConnectContext = AppServiceContext & {
  resumeRunsAwaitingApp(scope: Pick<Scope, "accountId" | "endUserId">, app: string): Promise<unknown>;
};

type ConnectionOut = z.infer<typeof AppConnection>;

/** How long a connect flow waits for the authorization to come back. */
export const CONNECT_FLOW_TTL_MS = 10 * 60_000;
export const OAUTH_CALLBACK_PATH = "/apps/oauth/callback";

const newConnectionId = () => `conn_${randomBytes(12).toString("hex")}`;
const randomToken = () => randomBytes(32).toString("base64url");

export function toConnection(row: ConnectionRow): ConnectionOut {
  return {
    connection_id: row.id,
    status: row.status as ConnectionOut["status"],
    account_label: row.accountLabel,
    scopes: row.scopes,
    updated_at: row.updatedAt.toISOString(),
    app: row.app,
    label: row.label,
    notes: row.notes,
    user_id: row.endUser?.externalId ?? null,
    agent_ids: row.agentIds,
    last_error: row.lastError,
    expires_at: row.expiresAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
  };
}

// --- Errors ---------------------------------------------------------------------------------------

const appNotFound = (slug: string) => new PlatformError({ type: "not_found", message: `app ${slug} not found (GET /apps lists them)` });
const connectionNotFound = (id: string) => new PlatformError({ type: "not_found", message: `connection ${id} not found` });

const fieldError = (field: string, message: string, errorCode?: string) =>
  new PlatformError({ type: "validation_error", errorCode, message: `${field}: ${message}`, details: { fields: [{ field, message }] } });

/** For what a self-hosted platform does not offer; `why` says what to do instead. */
export const featureNotAvailable = (what: string, why: string) =>
  new PlatformError({ type: "validation_error", errorCode: "feature_not_available", message: `${what} is not available on this platform: ${why}` });

export function appOf(config: PlatformConfig, slug: string): AppDefinition {
  const app = appCatalogOf(config).get(slug);
  if (!app) throw appNotFound(slug);
  return app;
}

/** The OAuth app as the account uses it (its own channel identity, else the shared app), configured. */
async function oauthAppFor(ctx: AppServiceContext, accountId: number, slug: string): Promise<AppDefinition> {
  appOf(ctx.config, slug);
  const app = (await appForAccount(ctx, accountId, slug))!;
  if (app.auth !== "oauth2") {
    throw new PlatformError({
      type: "validation_error",
      errorCode: "wrong_auth_kind",
      message: app.auth === "api_key" ? `${slug} is connected with an API key: use POST /apps/${slug}/connect/api-key` : `${slug} is not connected with OAuth`,
    });
  }
  if (!appUsable(app)) {
    throw new PlatformError({
      type: "validation_error",
      errorCode: "app_not_configured",
      message: `${slug} has no OAuth client credentials on this platform (set INLAY_APP_${slug.toUpperCase().replace(/-/g, "_")}_CLIENT_ID and _CLIENT_SECRET, or client_id and client_secret in INLAY_APPS_FILE${CHANNEL_APPS.has(slug) ? ", or store the account's own with PUT /channels/identities" : ""})`,
    });
  }
  return app;
}

// --- Catalogue ------------------------------------------------------------------------------------

const STATUS_RANK: Record<string, number> = { active: 4, expired: 3, error: 2, revoked: 1 };

export async function listApps(ctx: AppServiceContext, auth: AuthContext, userId: string | undefined) {
  const scope = await resolveScope(ctx, auth, userId);
  const rows = await connections.listConnections(ctx.prisma, scope);
  const catalog = appCatalogOf(ctx.config);
  const ownIdentities = new Set((await listIdentities(ctx.prisma, scope.accountId)).map((identity) => identity.channel));
  return catalog.list().map((app) => {
    const own = rows.filter((row) => row.app === app.slug);
    const best = own.map((row) => row.status).sort((a, b) => (STATUS_RANK[b] ?? 0) - (STATUS_RANK[a] ?? 0))[0];
    return {
      slug: app.slug,
      name: app.name,
      description: app.description,
      auth: app.auth,
      configured: catalog.configured(app.slug) || ownIdentities.has(app.slug),
      source: app.source,
      tools_count: app.tools.length,
      connected: own.some((row) => row.status === "active"),
      connection_status: (best ?? null) as ConnectionOut["status"] | null,
      connections_count: own.length,
    };
  });
}

export async function listAppConnections(ctx: AppServiceContext, auth: AuthContext, userId: string | undefined, slug?: string) {
  if (slug !== undefined) appOf(ctx.config, slug);
  const scope = await resolveScope(ctx, auth, userId);
  return (await connections.listConnections(ctx.prisma, scope, { app: slug })).map(toConnection);
}

export function appTools(config: PlatformConfig, slug: string) {
  return appOf(config, slug).tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    method: tool.method,
    path: tool.path,
    input_schema: tool.input,
    scopes: tool.scopes ?? [],
  }));
}

export function appTriggers(config: PlatformConfig, slug: string) {
  return appOf(config, slug).triggers.map((trigger) => ({ name: trigger.name, description: trigger.description, config_schema: trigger.config }));
}

// --- OAuth connect ---------------------------------------------------------------------------------

/** The redirect_uri's origin must be the platform's own or on the allow-list. */
export function checkRedirectUri(config: PlatformConfig, redirectUri: string, platformBaseUrl: string): string {
  let url: URL;
  try {
    url = new URL(redirectUri);
  } catch {
    throw fieldError("redirect_uri", "must be an absolute URL");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw fieldError("redirect_uri", "must be an http or https URL");
  const allowed = new Set([new URL(platformBaseUrl).origin, ...appCatalogOf(config).redirectOrigins]);
  if (!allowed.has(url.origin)) {
    throw fieldError("redirect_uri", `origin ${url.origin} is not allowed (add it to INLAY_APP_REDIRECT_ORIGINS)`, "redirect_uri_not_allowed");
  }
  return url.toString();
}

export async function startConnect(
  ctx: AppServiceContext,
  auth: AuthContext,
  slug: string,
  userId: string | undefined,
  input: z.infer<typeof ConnectRequest>,
) {
  const app = await oauthAppFor(ctx, auth.accountId, slug);
  const platformBase = ctx.config.publicBaseUrl;
  const redirectUri = checkRedirectUri(ctx.config, input.redirect_uri, platformBase);
  const scope = await resolveScope(ctx, auth, userId);
  const oauthRedirectUri = app.oauth!.nativeRedirect ? redirectUri : `${platformBase}${OAUTH_CALLBACK_PATH}`;
  const state = randomToken();
  const codeVerifier = newCodeVerifier();
  const id = newConnectionId();
  const expiresAt = new Date(Date.now() + CONNECT_FLOW_TTL_MS);
  await connections.deleteAbandonedConnections(ctx.prisma, scope, slug, new Date(Date.now() - CONNECT_FLOW_TTL_MS));
  await connections.insertPendingConnection(
    ctx.prisma,
    scope,
    { id, app: slug, scopes: app.oauth!.scopes },
    {
      stateHash: sha256Hex(state),
      codeVerifierSealed: sealSecret(ctx.config, codeVerifier),
      redirectUri,
      oauthRedirectUri,
      addAccount: input.add_account ?? false,
      expiresAt,
    },
  );
  return {
    authorization_url: await appAuthorizationUrl(app, { redirectUri: oauthRedirectUri, state, codeVerifier }),
    connection_id: id,
    expires_at: expiresAt.toISOString(),
  };
}

/** Exchanges the code of a flow and stores the tokens and the account label on its connection. */
async function authorizeFlow(ctx: AppServiceContext, app: AppDefinition, flow: FlowRow, callback: URLSearchParams, state: string | null) {
  const verifier = openSecret(ctx.config, flow.codeVerifierSealed).value;
  const tokens = await exchangeCode(appOAuthTarget(ctx.config, app), { callback, state, redirectUri: flow.oauthRedirectUri, codeVerifier: verifier });
  const credentials: StoredCredentials = credentialsOfTokens(tokens);
  const identity = await readIdentity(ctx.config, app, credentials);
  await connections.updateConnection(ctx.prisma, flow.connectionId, {
    credentialsSealed: sealCredentials(ctx.config, credentials),
    expiresAt: tokens.expiresAt,
    scopes: tokens.scope ?? app.oauth?.scopes ?? [],
    accountLabel: identity.label,
    ...(identity.kept ? { options: identity.kept as object } : {}),
    lastError: null,
  });
}

/**
 * GET /apps/oauth/callback: the app's authorization server sent the browser back. Answers where to
 * send it next (the caller's redirect_uri, with connection_id, app, status and, for account-level
 * flows, connector_claim), or throws when the state is unknown, used or expired (there is then no
 * trustworthy place to redirect to).
 */
export async function handleOAuthCallback(ctx: AppServiceContext, query: { code?: string; state?: string; error?: string; error_description?: string; iss?: string }): Promise<string> {
  const refused = (why: string) => new PlatformError({ type: "invalid_request_error", errorCode: "invalid_state", message: `state: ${why}; start again with POST /apps/<app>/connect` });
  if (!query.state) throw refused("is missing");
  const flow = await connections.consumeFlow(ctx.prisma, sha256Hex(query.state));
  if (!flow) throw refused("is unknown, already used or expired");
  const target = new URL(flow.redirectUri);
  target.searchParams.set("connection_id", flow.connectionId);
  target.searchParams.set("app", flow.app);
  const fail = async (message: string) => {
    await connections.updateFlow(ctx.prisma, flow.stateHash, { status: "failed", error: message });
    await connections.updateConnection(ctx.prisma, flow.connectionId, { status: "error", lastError: message });
    target.searchParams.set("status", "error");
    target.searchParams.set("error_description", message);
    return target.toString();
  };
  const app = await appForAccount(ctx, flow.accountId, flow.app);
  if (!app) return fail(`the app ${flow.app} is no longer in the catalogue`);
  if (query.error) return fail(`the authorization was refused: ${query.error}${query.error_description ? ` (${query.error_description})` : ""}`.slice(0, 500));
  if (!query.code) return fail("the authorization server sent no code");
  const callback = new URLSearchParams({ code: query.code, state: query.state, ...(query.iss ? { iss: query.iss } : {}) });
  try {
    await authorizeFlow(ctx, app, flow, callback, query.state);
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    logger.warn({ app: flow.app, connectionId: flow.connectionId, oauthError: error.code }, "app authorization failed at the code exchange");
    return fail(error.message);
  }
  let ticket: string | undefined;
  if (flow.endUserId === null) {
    ticket = randomToken();
    target.searchParams.set("connector_claim", ticket);
  }
  await connections.updateFlow(ctx.prisma, flow.stateHash, { status: "authorized", ...(ticket ? { claimTicketHash: sha256Hex(ticket) } : {}) });
  target.searchParams.set("status", "authorized");
  return target.toString();
}

/** Grants, replaces the scope's other connections unless add_account, and lets waiting runs go on. */
async function activate(
  ctx: ConnectContext,
  scope: Scope,
  connectionId: string,
  app: string,
  options: { agentId?: number; addAccount: boolean },
): Promise<ConnectionRow> {
  const row = await connections.updateConnection(ctx.prisma, connectionId, {
    status: "active",
    lastError: null,
    agentIds: options.agentId !== undefined ? [options.agentId] : [],
  });
  if (!options.addAccount) {
    for (const other of await connections.otherConnections(ctx.prisma, scope, app, connectionId)) {
      await revokeAtApp(ctx, other);
      await connections.deleteConnection(ctx.prisma, other.id);
    }
  }
  await ctx.resumeRunsAwaitingApp(scope, app);
  return row;
}

async function checkAgent(ctx: AppServiceContext, scope: Scope, agentId: number | undefined) {
  if (agentId !== undefined && !(await agentExistsInScope(ctx.prisma, scope, agentId))) {
    throw new PlatformError({ type: "not_found", message: `agent ${agentId} not found` });
  }
}

export async function completeConnect(ctx: ConnectContext, auth: AuthContext, slug: string, userId: string | undefined, input: z.infer<typeof CompleteRequest>) {
  const app = await oauthAppFor(ctx, auth.accountId, slug);
  const scope = await resolveScope(ctx, auth, userId);
  await checkAgent(ctx, scope, input.agent_id);
  const done = (row: ConnectionRow) => ({ status: row.status as ConnectionOut["status"], app: slug, connection_id: row.id });

  if (input.code !== undefined) {
    // The native path: the app sent the code to the client's own redirect, and the client hands it here.
    if (!app.oauth!.nativeRedirect) throw fieldError("code", `${slug} sends its authorization to the platform's callback; complete with connection_id (or claim_ticket) only`);
    if (!input.connection_id) throw fieldError("connection_id", "is required with code");
    if (!input.redirect_uri) throw fieldError("redirect_uri", "is required with code (the one given to connect)");
    const row = await connections.findConnection(ctx.prisma, scope, input.connection_id, slug);
    if (!row) throw connectionNotFound(input.connection_id);
    const flow = await connections.consumeFlowOfConnection(ctx.prisma, row.id);
    if (!flow) throw new PlatformError({ type: "conflict_error", errorCode: "connect_flow_expired", message: "the connect flow expired or was already used; start again with POST /apps/<app>/connect" });
    if (flow.redirectUri !== input.redirect_uri && flow.redirectUri !== safeUrl(input.redirect_uri)) throw fieldError("redirect_uri", "is not the one given to connect");
    try {
      await authorizeFlow(ctx, app, flow, new URLSearchParams({ code: input.code }), null);
    } catch (error) {
      if (!(error instanceof OAuthError)) throw error;
      await connections.updateFlow(ctx.prisma, flow.stateHash, { status: "failed", error: error.message });
      await connections.updateConnection(ctx.prisma, row.id, { status: "error", lastError: error.message });
      throw new PlatformError({ type: "validation_error", errorCode: "authorization_failed", message: `code: ${error.message}` });
    }
    await connections.updateFlow(ctx.prisma, flow.stateHash, { status: "completed" });
    return done(await activate(ctx, scope, row.id, slug, { agentId: input.agent_id, addAccount: input.add_account ?? flow.addAccount }));
  }

  let flow: FlowRow | null;
  if (scope.endUserId !== null) {
    if (!input.connection_id) throw fieldError("connection_id", "is required for end-user connections");
    const row = await connections.findConnection(ctx.prisma, scope, input.connection_id, slug);
    if (!row) throw connectionNotFound(input.connection_id);
    flow = await connections.completeAuthorizedFlow(ctx.prisma, { connectionId: row.id });
    if (!flow) {
      if (row.status === "active") return done(row);
      throw new PlatformError({
        type: "conflict_error",
        errorCode: "connection_not_authorized",
        message: `connection ${row.id} has not been authorized${row.lastError ? `: ${row.lastError}` : " (the browser has not come back from the app yet)"}`,
      });
    }
  } else {
    if (!input.claim_ticket) throw fieldError("claim_ticket", "is required for account-level connections (the connector_claim parameter of the redirect)");
    flow = await connections.completeAuthorizedFlow(ctx.prisma, { claimTicketHash: sha256Hex(input.claim_ticket), accountId: scope.accountId, app: slug });
    if (!flow) throw new PlatformError({ type: "not_found", message: "claim_ticket: unknown, already used, or of another app" });
  }
  return done(await activate(ctx, scope, flow.connectionId, slug, { agentId: input.agent_id, addAccount: input.add_account ?? flow.addAccount }));
}

function safeUrl(text: string): string | undefined {
  try {
    return new URL(text).toString();
  } catch {
    return undefined;
  }
}

// --- API keys -------------------------------------------------------------------------------------

export async function connectApiKey(ctx: ConnectContext, auth: AuthContext, slug: string, userId: string | undefined, input: z.infer<typeof ApiKeyRequest>) {
  const app = appOf(ctx.config, slug);
  if (app.auth !== "api_key") {
    throw new PlatformError({
      type: "validation_error",
      errorCode: "wrong_auth_kind",
      message: app.auth === "oauth2" ? `${slug} is connected with OAuth: use POST /apps/${slug}/connect` : `${slug} is not connected with an API key`,
    });
  }
  const scope = await resolveScope(ctx, auth, userId);
  await checkAgent(ctx, scope, input.agent_id);
  const credentials: StoredCredentials = { kind: "api_key", api_key: input.api_key };
  const identity = await readIdentity(ctx.config, app, credentials);
  if (identity.refused) throw fieldError("api_key", `was refused by ${app.name}`, "api_key_refused");
  const row = await connections.insertConnection(ctx.prisma, {
    id: newConnectionId(),
    accountId: scope.accountId,
    endUserId: scope.endUserId,
    app: slug,
    authKind: "api_key",
    status: "pending",
    accountLabel: identity.label,
    credentialsSealed: sealCredentials(ctx.config, credentials),
    ...(input.options || identity.kept ? { options: { ...identity.kept, ...input.options } as object } : {}),
  });
  const active = await activate(ctx, scope, row.id, slug, { agentId: input.agent_id, addAccount: input.add_account ?? false });
  return { status: active.status as ConnectionOut["status"], app: slug, connection_id: active.id };
}

// --- Managing connections --------------------------------------------------------------------------

export async function updateAppConnection(
  ctx: AppServiceContext,
  auth: AuthContext,
  userId: string | undefined,
  id: string,
  input: z.infer<typeof UpdateConnectionRequest>,
): Promise<z.infer<typeof AppConnectionUpdated>> {
  const scope = await resolveScope(ctx, auth, userId);
  const row = await connections.findConnection(ctx.prisma, scope, id);
  if (!row) throw connectionNotFound(id);
  const updated = await connections.updateConnection(ctx.prisma, row.id, {
    ...(input.label !== undefined ? { label: input.label === "" ? null : input.label } : {}),
    ...(input.notes !== undefined ? { notes: input.notes === "" ? null : input.notes } : {}),
  });
  const out = toConnection(updated);
  return { connection_id: out.connection_id, status: out.status, account_label: out.account_label, scopes: out.scopes, updated_at: out.updated_at };
}

export async function deleteAppConnection(ctx: AppServiceContext, auth: AuthContext, userId: string | undefined, id: string) {
  const scope = await resolveScope(ctx, auth, userId);
  const row = await connections.findConnection(ctx.prisma, scope, id);
  if (!row) throw connectionNotFound(id);
  await revokeAtApp(ctx, row);
  await connections.deleteConnection(ctx.prisma, row.id);
}

/** Every connection of the app in the scope, pending ones included; how many went. */
export async function deleteAppConnections(ctx: AppServiceContext, auth: AuthContext, userId: string | undefined, slug: string): Promise<number> {
  appOf(ctx.config, slug);
  const scope = await resolveScope(ctx, auth, userId);
  const rows = await connections.listConnections(ctx.prisma, scope, { app: slug, includePending: true });
  for (const row of rows) {
    await revokeAtApp(ctx, row);
    await connections.deleteConnection(ctx.prisma, row.id);
  }
  return rows.length;
}

// --- What a self-hosted platform does not offer ---------------------------------------------------

const UNAVAILABLE = {
  externalOAuth: [
    "connect/external-oauth",
    "it completes connections through the hosted platform's own apps page, which a self-hosted platform does not have; use POST /apps/<app>/connect and /connect/complete",
  ],
  install: [
    "the chat app install and claim",
    "the chat app is connected per workspace with POST /apps/<app>/connect without user_id (an account-level connection), completed with the connector_claim of the redirect",
  ],
  customers: ["customer account selection", "no app of this platform's catalogue is an ad platform with customer accounts"],
  sites: ["site selection", "no app of this platform's catalogue is a search console with sites"],
} as const;

/** Always throws: 404 for an unknown app, else 422 saying why the operation is not offered and what to do instead. */
export function refuseUnavailable(config: PlatformConfig, slug: string, kind: keyof typeof UNAVAILABLE | "provision"): never {
  const app = appOf(config, slug);
  if (kind === "provision") {
    throw new PlatformError({
      type: "validation_error",
      errorCode: "app_not_provisionable",
      message:
        app.auth === "provisioned"
          ? `${slug}: provisioning is not available on this platform (it allocates nothing, such as phone numbers, itself)`
          : `${slug} is not provisioned by the platform: connect it with ${app.auth === "api_key" ? `POST /apps/${slug}/connect/api-key` : `POST /apps/${slug}/connect`}`,
    });
  }
  const [what, why] = UNAVAILABLE[kind];
  throw featureNotAvailable(what, why);
}
