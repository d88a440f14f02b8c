// Credentials of app connections: sealed at rest (AES-256-GCM, server/shared/secret-box.ts) under a key
// derived from the platform's secret key, opened with a previous key while keys rotate; the headers a
// tool call sends (services of the run runtime call authorizationFor); OAuth refresh, single-flight
// per connection across instances (services/refresh-claim.ts); revocation on disconnect. Tokens never enter a log line or an
// error message: messages name the app and the OAuth error code only.
import { logger } from "@/lib/logger";
import { CHANNELS } from "@inlay/core/schemas/channels";
import type { Db } from "../../repositories/db";
import { appCatalogOf } from "../../apps/catalog";
import { appMayUseLoopback, type AppDefinition } from "../../apps/definition";
import { appOAuthTarget } from "../../apps/oauth-client";
import { OAuthError, REFRESH_MARGIN_MS, refreshTokens, revokeToken, type TokenSet } from "../../outbound/oauth-client";
import type { PlatformConfig } from "../../platform-config";
import { guardedFetch } from "../../outbound/guarded-fetch";
import * as connections from "../../repositories/app-connections";
import type { ConnectionRow } from "../../repositories/app-connections";
import * as identities from "../../repositories/channel-identities";
import { openSecret, sealSecret } from "../sealed-secrets";
import { SecretBoxError } from "@/server/shared/secret-box";
import { REFRESH_CLAIM_MS, REFRESH_WAIT_MS, waitForRefreshClaim } from "../refresh-claim";

export interface CredentialContext {
  prisma: Db;
  config: PlatformConfig;
}

/** What a connection's sealed credentials hold. */
export type StoredCredentials =
  | { kind: "oauth2"; access_token: string; refresh_token?: string; token_type: string }
  | { kind: "api_key"; api_key: string };

export type AuthorizationResult =
  | { ok: true; headers: Record<string, string>; baseUrl: string }
  | { ok: false; status: "expired" | "revoked" | "error" | "missing"; message: string };

// --- Sealing --------------------------------------------------------------------------------------

export const sealCredentials = (config: PlatformConfig, credentials: StoredCredentials) => sealSecret(config, JSON.stringify(credentials));

export function openCredentials(config: PlatformConfig, sealed: string): { credentials: StoredCredentials; stale: boolean } {
  const { value, stale } = openSecret(config, sealed);
  return { credentials: JSON.parse(value) as StoredCredentials, stale };
}

// --- The app an account uses ---------------------------------------------------------------------

export const CHANNEL_APPS: ReadonlySet<string> = new Set(CHANNELS);

/**
 * The app as `accountId` uses it: with the OAuth client of the account's channel identity (PUT
 * /channels/identities) when it stored one for this app, else the catalogue's, the operator's shared
 * app. Undefined for an app not in the catalogue. An identity whose secret cannot be opened (the
 * secret key changed without INLAY_SECRET_KEY_PREVIOUS) leaves the app without a client secret: not
 * usable, never the shared app in its place.
 */
export async function appForAccount(ctx: CredentialContext, accountId: number, slug: string): Promise<AppDefinition | undefined> {
  const app = appCatalogOf(ctx.config).get(slug);
  if (!app?.oauth || !CHANNEL_APPS.has(slug)) return app;
  const identity = await identities.findIdentity(ctx.prisma, accountId, slug);
  if (!identity) return app;
  let clientSecret: string | undefined;
  try {
    clientSecret = openSecret(ctx.config, identity.clientSecretSealed).value;
  } catch (error) {
    if (!(error instanceof SecretBoxError)) throw error;
    logger.warn({ accountId, app: slug }, "the account's own app identity cannot be decrypted (was INLAY_SECRET_KEY changed without INLAY_SECRET_KEY_PREVIOUS?)");
  }
  return { ...app, oauth: { ...app.oauth, clientId: identity.clientId, clientSecret } };
}

/** An OAuth app is usable when it has client credentials (its own or the shared app's); API-key apps always are. */
export const appUsable = (app: AppDefinition) => app.auth === "api_key" || (app.auth === "oauth2" && Boolean(app.oauth?.clientId && app.oauth.clientSecret));

export const credentialsOfTokens = (tokens: TokenSet, previous?: StoredCredentials): StoredCredentials => ({
  kind: "oauth2",
  access_token: tokens.accessToken,
  // A refresh answer without a new refresh token keeps the old one (RFC 6749 §6).
  refresh_token: tokens.refreshToken ?? (previous?.kind === "oauth2" ? previous.refresh_token : undefined),
  token_type: tokens.tokenType,
});

// --- Headers of a call ----------------------------------------------------------------------------

function headersOf(app: AppDefinition, credentials: StoredCredentials): Record<string, string> {
  if (credentials.kind === "api_key") {
    const header = app.apiKey?.header ?? "Authorization";
    const prefix = app.apiKey?.prefix ?? (header.toLowerCase() === "authorization" ? "Bearer " : "");
    return { [header]: `${prefix}${credentials.api_key}` };
  }
  return { Authorization: `Bearer ${credentials.access_token}` };
}

const failure = (status: "expired" | "revoked" | "error" | "missing", message: string): AuthorizationResult => ({ ok: false, status, message });

const reconnect = (app: string) => `the ${app} connection needs to be connected again`;

/**
 * The headers and base URL of a call to the connection's app. OAuth access tokens expiring within 60 s
 * are refreshed first (once across instances); a refused refresh (invalid_grant) marks the connection
 * expired.
 */
export async function authorizationFor(ctx: CredentialContext, connectionId: string): Promise<AuthorizationResult> {
  return authorize(ctx, connectionId, { rejected: undefined });
}

/**
 * The app answered 401 to `rejectedAccessToken`: refresh once (or, when another caller already did,
 * take its new token); without a refresh token, or when the refresh is refused, the connection is
 * marked expired.
 */
export async function refreshAfterUnauthorized(ctx: CredentialContext, connectionId: string, rejectedAccessToken: string): Promise<AuthorizationResult> {
  return authorize(ctx, connectionId, { rejected: rejectedAccessToken });
}

async function authorize(ctx: CredentialContext, connectionId: string, options: { rejected: string | undefined }): Promise<AuthorizationResult> {
  const deadline = Date.now() + REFRESH_WAIT_MS;
  for (;;) {
    const row = await connections.findConnectionById(ctx.prisma, connectionId);
    const verdict = await usable(ctx, row);
    if ("result" in verdict) return verdict.result;
    const { app, credentials } = verdict;
    if (credentials.kind === "api_key") {
      if (options.rejected !== undefined) {
        await markExpired(ctx, row!, "the app refused the API key");
        return failure("expired", `the app refused the ${app.slug} API key; connect it again`);
      }
      return { ok: true, headers: headersOf(app, credentials), baseUrl: app.apiBaseUrl };
    }
    const rejected = options.rejected !== undefined && options.rejected === credentials.access_token;
    const due = row!.expiresAt !== null && row!.expiresAt.getTime() - Date.now() < REFRESH_MARGIN_MS;
    if (!rejected && !due) {
      await touch(ctx, row!, verdict.stale, credentials);
      return { ok: true, headers: headersOf(app, credentials), baseUrl: app.apiBaseUrl };
    }
    if (!credentials.refresh_token) {
      if (rejected || row!.expiresAt!.getTime() <= Date.now()) {
        await markExpired(ctx, row!, "the access token expired and the app gave no refresh token");
        return failure("expired", `${reconnect(app.slug)}: its access token expired`);
      }
      return { ok: true, headers: headersOf(app, credentials), baseUrl: app.apiBaseUrl };
    }
    if (await connections.claimRefresh(ctx.prisma, connectionId, REFRESH_CLAIM_MS)) {
      return refreshClaimed(ctx, connectionId, app, options);
    }
    // Another caller is refreshing: wait for its claim to end, then read the result.
    if (Date.now() > deadline) return failure("error", `the ${app.slug} token refresh is taking too long; try again`);
    await waitForRefreshClaim(async () => (await connections.findConnectionById(ctx.prisma, connectionId))?.refreshingUntil, deadline);
  }
}

async function usable(
  ctx: CredentialContext,
  row: ConnectionRow | null,
): Promise<{ result: AuthorizationResult } | { app: AppDefinition; credentials: StoredCredentials; stale: boolean }> {
  if (!row || row.status === "pending" || !row.credentialsSealed) return { result: failure("missing", "no such connection, or it was never completed") };
  if (row.status === "expired") return { result: failure("expired", `${reconnect(row.app)}${row.lastError ? `: ${row.lastError}` : ""}`) };
  if (row.status === "revoked") return { result: failure("revoked", `the ${row.app} connection was revoked`) };
  const app = await appForAccount(ctx, row.accountId, row.app);
  if (!app) return { result: failure("error", `the app ${row.app} is no longer in the catalogue`) };
  try {
    const { credentials, stale } = openCredentials(ctx.config, row.credentialsSealed);
    return { app, credentials, stale };
  } catch {
    return { result: failure("error", `the ${row.app} credentials cannot be decrypted (was INLAY_SECRET_KEY changed without INLAY_SECRET_KEY_PREVIOUS?)`) };
  }
}

/** Last use, and sealing again under the current key when they were opened with a previous one. */
async function touch(ctx: CredentialContext, row: ConnectionRow, stale: boolean, credentials: StoredCredentials) {
  // At most once a minute: every tool call would otherwise write the row.
  if (!stale && row.lastUsedAt && Date.now() - row.lastUsedAt.getTime() < 60_000) return;
  const data = { lastUsedAt: new Date(), ...(stale ? { credentialsSealed: sealCredentials(ctx.config, credentials) } : {}) };
  await connections.updateConnectionIfSealed(ctx.prisma, row.id, row.credentialsSealed, data);
}

async function markExpired(ctx: CredentialContext, row: Pick<ConnectionRow, "id">, why: string) {
  await connections.updateConnection(ctx.prisma, row.id, { status: "expired", lastError: why, refreshingUntil: null });
}

/** This caller holds the claim: read again (someone may have refreshed just before), refresh, store. */
async function refreshClaimed(ctx: CredentialContext, connectionId: string, app: AppDefinition, options: { rejected: string | undefined }): Promise<AuthorizationResult> {
  const row = await connections.findConnectionById(ctx.prisma, connectionId);
  const verdict = await usable(ctx, row);
  if ("result" in verdict) {
    if (row) await connections.updateConnection(ctx.prisma, row.id, { refreshingUntil: null });
    return verdict.result;
  }
  const { credentials } = verdict;
  if (credentials.kind !== "oauth2" || !credentials.refresh_token) return failure("error", "nothing to refresh");
  const stillRejected = options.rejected !== undefined && options.rejected === credentials.access_token;
  const stillDue = row!.expiresAt !== null && row!.expiresAt.getTime() - Date.now() < REFRESH_MARGIN_MS;
  if (!stillRejected && !stillDue) {
    await connections.updateConnection(ctx.prisma, connectionId, { refreshingUntil: null });
    return { ok: true, headers: headersOf(app, credentials), baseUrl: app.apiBaseUrl };
  }
  try {
    const tokens = await refreshTokens(appOAuthTarget(ctx.config, app), credentials.refresh_token);
    const fresh = credentialsOfTokens(tokens, credentials);
    await connections.updateConnection(ctx.prisma, connectionId, {
      credentialsSealed: sealCredentials(ctx.config, fresh),
      expiresAt: tokens.expiresAt,
      ...(tokens.scope ? { scopes: tokens.scope } : {}),
      status: "active",
      lastError: null,
      lastUsedAt: new Date(),
      refreshingUntil: null,
    });
    return { ok: true, headers: headersOf(app, fresh), baseUrl: app.apiBaseUrl };
  } catch (error) {
    const flow = error instanceof OAuthError ? error : new OAuthError("error", "token refresh failed");
    logger.warn({ connectionId, app: app.slug, oauthError: flow.code }, "app token refresh failed");
    if (flow.code === "invalid_grant" || flow.code === "bad_refresh_token" || flow.code === "unauthorized_client") {
      await markExpired(ctx, { id: connectionId }, flow.message);
      return failure("expired", `${reconnect(app.slug)}: ${flow.message}`);
    }
    // A failure that may pass (the server is down): the token still works a little, use it; once it
    // no longer does, the connection is in error until a later refresh succeeds.
    const usableStill = !stillRejected && row!.expiresAt !== null && row!.expiresAt.getTime() > Date.now();
    await connections.updateConnection(ctx.prisma, connectionId, { lastError: flow.message, refreshingUntil: null, ...(usableStill ? {} : { status: "error" }) });
    if (usableStill) return { ok: true, headers: headersOf(app, credentials), baseUrl: app.apiBaseUrl };
    return failure("error", `the ${app.slug} token could not be refreshed: ${flow.message}`);
  }
}

/**
 * What a run of `agentId` may be offered: findUsableConnections without the connections of apps that
 * left the catalogue or are no longer configured (an OAuth app whose client credentials were removed,
 * unless the account has its own identity of it).
 */
export async function connectionsForRun(ctx: CredentialContext, scope: connections.ConnectionScope, agentId: number | null): Promise<ConnectionRow[]> {
  const catalog = appCatalogOf(ctx.config);
  const rows = await connections.findUsableConnections(ctx.prisma, scope, agentId);
  const own = rows.some((row) => CHANNEL_APPS.has(row.app)) ? new Set((await identities.listIdentities(ctx.prisma, scope.accountId)).map((identity) => identity.channel)) : new Set<string>();
  return rows.filter((row) => catalog.configured(row.app) || (own.has(row.app) && catalog.get(row.app) !== undefined));
}

// --- Identity and revocation ----------------------------------------------------------------------

const pick = (value: unknown, path: string): unknown =>
  path.split(".").reduce<unknown>((node, key) => (node && typeof node === "object" ? (node as Record<string, unknown>)[key] : undefined), value);

/** The connected account's label (and kept fields) from the app's identity endpoint; nulls when it fails. */
export async function readIdentity(
  config: PlatformConfig,
  app: AppDefinition,
  credentials: StoredCredentials,
): Promise<{ label: string | null; kept: Record<string, unknown> | null; refused: boolean }> {
  if (!app.identity) return { label: null, kept: null, refused: false };
  const allow = appMayUseLoopback(config, app);
  try {
    const response = await guardedFetch(
      `${app.apiBaseUrl.replace(/\/+$/, "")}${app.identity.path}`,
      { method: "GET", headers: { accept: "application/json", "user-agent": "inlay-platform", ...headersOf(app, credentials) } },
      { allowHttp: allow, allowLoopback: allow, timeoutMs: 10_000 },
    );
    if (response.status === 401 || response.status === 403) return { label: null, kept: null, refused: true };
    if (response.status !== 200) return { label: null, kept: null, refused: false };
    const body = JSON.parse(response.body) as unknown;
    const template = app.identity.labelTemplate;
    const label = template
      ? template.replace(/\{([\w.]+)\}/g, (_, path: string) => String(pick(body, path) ?? "")).trim()
      : String(pick(body, app.identity.labelField) ?? "");
    const kept = app.identity.keep ? Object.fromEntries(app.identity.keep.map((path) => [path, pick(body, path) ?? null])) : null;
    return { label: label === "" ? null : label.slice(0, 255), kept, refused: false };
  } catch (error) {
    logger.warn({ app: app.slug, reason: (error as { reason?: string }).reason ?? "invalid_response" }, "could not read the connected account of an app");
    return { label: null, kept: null, refused: false };
  }
}

/** Revokes the connection's tokens at the app when it has an endpoint; failures are logged (without secrets) and ignored. */
export async function revokeAtApp(ctx: CredentialContext, row: Pick<ConnectionRow, "id" | "accountId" | "app" | "authKind" | "credentialsSealed">): Promise<void> {
  if (row.authKind !== "oauth2" || !row.credentialsSealed) return;
  const config = ctx.config;
  try {
    const app = await appForAccount(ctx, row.accountId, row.app);
    if (!app?.oauth?.revocationUrl || !app.oauth.clientId) return;
    const { credentials } = openCredentials(config, row.credentialsSealed);
    if (credentials.kind !== "oauth2") return;
    // Revoking the refresh token ends the grant (and with it the access tokens) where servers support it.
    if (credentials.refresh_token) await revokeToken(appOAuthTarget(config, app), credentials.refresh_token, "refresh_token");
    else await revokeToken(appOAuthTarget(config, app), credentials.access_token, "access_token");
  } catch (error) {
    const code = error instanceof OAuthError ? error.code : error instanceof SecretBoxError ? "cannot_decrypt" : "error";
    logger.warn({ connectionId: row.id, app: row.app, oauthError: code }, "could not revoke an app connection's token; deleting it anyway");
  }
}
