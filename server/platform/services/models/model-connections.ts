// Model connections: an account's own credentials for a model provider (docs/platform-api.md, "Model
// connections"). API keys (openai, anthropic, openai-compatible), pasted tokens and an authorization
// flow (provA) are sealed at rest and never returned. A run whose model's provider the account has
// connected calls the provider with them and settles on the own_sub meter (resolveOwnModelConnection).
import { randomBytes } from "node:crypto";
import {
  AUTHORIZATION_TTL_MS,
  MAX_PENDING_AUTHORIZATIONS,
  MAX_PROVIDER_ACCOUNTS,
  MODEL_CONNECTION_PROVIDERS,
  type ApiKeyConnectionRequest,
  type ModelAuthorization,
  type ModelConnection,
  type ModelConnectionList,
  type ModelConnectionProvider,
  type PasteConnectionRequest,
} from "@inlay/core/schemas/model-connections";
import type { Db } from "../../repositories/db";
import type { DataContext } from "../../infrastructure/hot-cache";
import type { PlatformConfig } from "../../platform-config";
import { PlatformError } from "../../errors";
import { OutboundError, type OutboundOptions } from "../../outbound/guarded-fetch";
import { accessTokenState, authorizationUrl, exchangeCode, newCodeVerifier, OAuthError, type OAuthTarget, refreshTokens } from "../../outbound/oauth-client";
import { checkUserUrl } from "../../outbound/user-url";
import {
  addProviderAccount,
  claimProviderAccountRefresh,
  type AuthorizationRow,
  type ConnectionRow,
  countConnectionsFor,
  countPendingAuthorizations,
  createAuthorization,
  deleteConnection,
  deleteProviderAccount,
  findAuthorization,
  findConnection,
  findConnectionsFor,
  findPreferredConnection,
  findProviderAccount,
  finishAuthorization,
  listConnections,
  type NewProviderAccount,
  type ProviderAccountRow,
  pruneAuthorizations,
  setDefaultModel,
  setPreferredDefault,
  updateAuthorization,
  updateProviderAccount,
} from "../../repositories/model-connections";
import { runMeter } from "../../repositories/plans";
import { openSecret, sealSecret } from "../sealed-secrets";
import { REFRESH_CLAIM_MS, REFRESH_WAIT_MS, waitForRefreshClaim } from "../refresh-claim";
import { findModel, modelCatalog, type ModelSettings, type ProviderSlug } from "../../models/catalog";
import { sha256Hex } from "@/server/shared/secret-box";

export interface ModelConnectionContext extends DataContext {
  config: PlatformConfig;
}

interface Auth {
  accountId: number;
}

type Method = ModelConnection["methods"][number];

/** What each provider slug runs (its catalogue author) and how it can be connected. */
const PROVIDERS: Record<ModelConnectionProvider, { serves: Exclude<ProviderSlug, "inlay">; methods: Method[] }> = {
  openai: { serves: "openai", methods: ["api_key"] },
  anthropic: { serves: "anthropic", methods: ["api_key"] },
  "openai-compatible": { serves: "openai-compatible", methods: ["api_key"] },
  provA: { serves: "anthropic", methods: ["paste", "authorization"] },
};

/** Sealed in secret_sealed: an API key, or a token pair. */
interface ProviderSecret {
  api_key?: string;
  access_token?: string;
  refresh_token?: string;
  project_id?: string;
}

const notFound = (message: string) => new PlatformError({ type: "not_found", message });
const invalid = (field: string, message: string) =>
  new PlatformError({ type: "validation_error", message: `${field}: ${message}`, details: { fields: [{ field, message }] } });

function providerOf(slug: string): ModelConnectionProvider {
  if (!(MODEL_CONNECTION_PROVIDERS as readonly string[]).includes(slug)) {
    throw notFound(`unknown model provider "${slug}"; the providers are ${MODEL_CONNECTION_PROVIDERS.join(", ")}`);
  }
  return slug as ModelConnectionProvider;
}

const outboundOf = (config: PlatformConfig): OutboundOptions => {
  const loopback = config.outboundAllowLoopback === true;
  return { allowLoopback: loopback, allowHttp: loopback };
};

const provAOAuth = (settings: ModelSettings) => settings.connections?.provA?.oauth;

function methodsOf(config: PlatformConfig, provider: ModelConnectionProvider): Method[] {
  return PROVIDERS[provider].methods.filter((method) => method !== "authorization" || provAOAuth(config.models) !== undefined);
}

const sealProviderSecret = (config: PlatformConfig, secret: ProviderSecret) => sealSecret(config, JSON.stringify(secret));
const openProviderSecret = (config: PlatformConfig, sealed: string) => JSON.parse(openSecret(config, sealed).value) as ProviderSecret;

// ---------------------------------------------------------------------------------------------
// Status

type AccountStatus = ModelConnection["accounts"][number]["status"];

function accountStatus(config: PlatformConfig, row: ProviderAccountRow, now: Date): AccountStatus {
  if (row.status === "failed") return "failed";
  if (row.expiresAt && row.expiresAt <= now) {
    // Past its expiry, a token pair is still usable when it can be refreshed here.
    const refreshable = row.method !== "api_key" && provAOAuth(config.models) !== undefined && hasRefreshToken(config, row);
    return refreshable ? "connected" : "expired";
  }
  return "connected";
}

function hasRefreshToken(config: PlatformConfig, row: ProviderAccountRow): boolean {
  try {
    return openProviderSecret(config, row.secretSealed).refresh_token !== undefined;
  } catch {
    return false;
  }
}

/** The platform default of a provider: the catalogue's default when it is this provider's, else its first curated model. */
function platformDefaultOf(settings: ModelSettings, serves: ProviderSlug): string | null {
  const entries = modelCatalog(settings).filter((entry) => entry.author === serves);
  return (entries.find((entry) => entry.default) ?? entries.find((entry) => entry.curated) ?? entries[0])?.id ?? null;
}

function toConnection(config: PlatformConfig, provider: ModelConnectionProvider, row: ConnectionRow | undefined, now: Date): ModelConnection {
  const accounts = (row?.accounts ?? []).map((account) => ({
    id: account.id,
    method: account.method as Method,
    label: account.label,
    status: accountStatus(config, account, now),
    base_url: account.baseUrl,
    expires_at: account.expiresAt?.toISOString() ?? null,
    last_error: account.lastError,
    created_at: account.createdAt.toISOString(),
  }));
  const connected = accounts.some((account) => account.status === "connected");
  const status = connected ? "connected" : (accounts.at(-1)?.status ?? "not_connected");
  const serves = PROVIDERS[provider].serves;
  return {
    provider,
    status: status as ModelConnection["status"],
    connected,
    methods: methodsOf(config, provider),
    serves,
    default_model: row?.defaultModel ?? null,
    effective_default_model: row?.defaultModel ?? platformDefaultOf(config.models, serves),
    preferred_default: row?.preferredDefault ?? false,
    accounts,
    connected_at: row ? row.createdAt.toISOString() : null,
  };
}

/** Every provider with the account's status on it (not_connected when it has no connection). */
export async function listModelConnections(ctx: ModelConnectionContext, auth: Auth): Promise<ModelConnectionList> {
  const rows = await listConnections(ctx.prisma, auth.accountId);
  const now = new Date();
  const byProvider = new Map(rows.map((row) => [row.provider, row]));
  const preferred = rows.find((row) => row.preferredDefault);
  return {
    data: MODEL_CONNECTION_PROVIDERS.map((provider) => toConnection(ctx.config, provider, byProvider.get(provider), now)),
    preferred_default: (preferred?.provider as ModelConnectionProvider | undefined) ?? null,
  };
}

async function connectionOut(ctx: ModelConnectionContext, auth: Auth, provider: ModelConnectionProvider): Promise<ModelConnection> {
  const row = await findConnection(ctx.prisma, auth.accountId, provider);
  return toConnection(ctx.config, provider, row ?? undefined, new Date());
}

/**
 * Every write to the account's connections goes through here, so every instance drops its copy of the
 * preferred connection (infrastructure/hot-cache.ts) before the response: also when the write failed,
 * since a row may have changed meanwhile.
 */
async function changingConnections<T>(ctx: ModelConnectionContext, auth: Auth, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } finally {
    await ctx.cache.modelConnectionsChanged(auth.accountId);
  }
}

async function requireConnection(ctx: ModelConnectionContext, auth: Auth, slug: string): Promise<ConnectionRow> {
  const provider = providerOf(slug);
  const row = await findConnection(ctx.prisma, auth.accountId, provider);
  if (!row) throw notFound(`no model connection for ${provider}`);
  return row;
}

// ---------------------------------------------------------------------------------------------
// Capturing credentials

async function addAccount(
  ctx: ModelConnectionContext,
  auth: Auth,
  provider: ModelConnectionProvider,
  account: NewProviderAccount,
  replaceLabel: boolean,
): Promise<ProviderAccountRow> {
  const row = await changingConnections(ctx, auth, () =>
    addProviderAccount(ctx.prisma, auth.accountId, provider, account, { max: MAX_PROVIDER_ACCOUNTS, replaceLabel }),
  );
  if (!row) {
    throw new PlatformError({
      type: "conflict_error",
      errorCode: "MODEL_ACCOUNT_LIMIT",
      message: `the ${provider} connection already holds ${MAX_PROVIDER_ACCOUNTS} accounts; disconnect one first (DELETE /model-connections/${provider}/accounts/<account_id>)`,
      details: { limit: MAX_PROVIDER_ACCOUNTS },
    });
  }
  return row;
}

/** PUT /model-connections/<provider> (our extension): an API key, and a base URL where one applies. */
export async function connectWithApiKey(
  ctx: ModelConnectionContext,
  auth: Auth,
  slug: string,
  input: ApiKeyConnectionRequest,
): Promise<ModelConnection> {
  const provider = providerOf(slug);
  if (!PROVIDERS[provider].methods.includes("api_key")) {
    throw new PlatformError({
      type: "invalid_request_error",
      errorCode: "METHOD_NOT_SUPPORTED",
      message: `${provider} is connected by pasting its tokens (POST /model-connections/provA/paste) or by an authorization, not with an API key`,
    });
  }
  if (provider === "openai-compatible" && input.base_url === undefined) throw invalid("base_url", "is required for openai-compatible");
  let baseUrl: string | null = null;
  if (input.base_url !== undefined) {
    try {
      baseUrl = checkUserUrl(input.base_url, { allowLoopback: ctx.config.outboundAllowLoopback === true }).href.replace(/\/+$/, "");
    } catch (error) {
      if (error instanceof OutboundError) throw invalid("base_url", error.message);
      throw error;
    }
  }
  await addAccount(
    ctx,
    auth,
    provider,
    { method: "api_key", label: input.label ?? "default", secretSealed: sealProviderSecret(ctx.config, { api_key: input.api_key }), baseUrl, expiresAt: null },
    true,
  );
  return connectionOut(ctx, auth, provider);
}

/** POST /model-connections/provA/paste: a token pair the person copied from the provider. */
export async function pasteConnection(ctx: ModelConnectionContext, auth: Auth, input: PasteConnectionRequest): Promise<ModelConnection> {
  const expiresAt = input.expires_at_ms === undefined ? null : new Date(input.expires_at_ms);
  if (expiresAt && Number.isNaN(expiresAt.getTime())) throw invalid("expires_at_ms", "is not a valid time");
  if (expiresAt && expiresAt <= new Date() && input.refresh_token === undefined) {
    throw invalid("expires_at_ms", "the token has already expired and there is no refresh_token to renew it");
  }
  const secret: ProviderSecret = { access_token: input.access_token, ...(input.refresh_token ? { refresh_token: input.refresh_token } : {}) };
  await addAccount(
    ctx,
    auth,
    "provA",
    { method: "paste", label: "pasted", secretSealed: sealProviderSecret(ctx.config, secret), baseUrl: null, expiresAt },
    false,
  );
  return connectionOut(ctx, auth, "provA");
}

export async function disconnect(ctx: ModelConnectionContext, auth: Auth, slug: string): Promise<void> {
  const provider = providerOf(slug);
  if (!(await changingConnections(ctx, auth, () => deleteConnection(ctx.prisma, auth.accountId, provider)))) throw notFound(`no model connection for ${provider}`);
}

export async function disconnectAccount(ctx: ModelConnectionContext, auth: Auth, slug: string, accountId: number): Promise<void> {
  const provider = providerOf(slug);
  if (!(await changingConnections(ctx, auth, () => deleteProviderAccount(ctx.prisma, auth.accountId, provider, accountId)))) {
    throw notFound(`account ${accountId} of the ${provider} connection not found`);
  }
}

// ---------------------------------------------------------------------------------------------
// Defaults

export async function applyDefault(ctx: ModelConnectionContext, auth: Auth, slug: string): Promise<ModelConnection> {
  const provider = providerOf(slug);
  if (!(await changingConnections(ctx, auth, () => setPreferredDefault(ctx.prisma, auth.accountId, provider)))) throw notFound(`no model connection for ${provider}`);
  return connectionOut(ctx, auth, provider);
}

export async function clearPreferredDefault(ctx: ModelConnectionContext, auth: Auth): Promise<void> {
  await changingConnections(ctx, auth, () => setPreferredDefault(ctx.prisma, auth.accountId, null));
}

export async function setConnectionDefaultModel(
  ctx: ModelConnectionContext,
  auth: Auth,
  slug: string,
  model: string | null,
): Promise<ModelConnection> {
  const row = await requireConnection(ctx, auth, slug);
  const provider = row.provider as ModelConnectionProvider;
  let id: string | null = null;
  if (model !== null) {
    const entry = findModel(ctx.config.models, model);
    if (!entry || entry.author !== PROVIDERS[provider].serves) {
      throw invalid("model", `"${model}" is not a known model of ${provider} (GET /models?author=${PROVIDERS[provider].serves} lists them)`);
    }
    id = entry.id;
  }
  await changingConnections(ctx, auth, () => setDefaultModel(ctx.prisma, auth.accountId, provider, id));
  return connectionOut(ctx, auth, provider);
}

/**
 * The model a run that names none uses: the preferred default connection's default model, when the
 * account chose one (POST …/apply-default) and it is usable; else null (the platform default).
 */
export async function preferredDefaultModel(ctx: ModelConnectionContext, accountId: number): Promise<string | null> {
  // Read through this process's cache: every run start that names no model asks, writes are rare.
  const row = await ctx.cache.preferredConnections.get(String(accountId), async () => ({
    accountId,
    provider: null,
    defaultModel: null,
    ...(await findPreferredConnection(ctx.prisma, accountId)),
  }));
  if (!row?.provider) return null;
  const provider = row.provider as ModelConnectionProvider;
  return row.defaultModel ?? platformDefaultOf(ctx.config.models, PROVIDERS[provider].serves);
}

// ---------------------------------------------------------------------------------------------
// The authorization flow (provA): authorization code with PKCE; the provider shows the person a code,
// which they paste into POST …/authorizations/<state>.

/** Finished authorizations are kept this long for polls, then forgotten. */
const AUTHORIZATION_KEPT_MS = 24 * 60 * 60_000;

function requireAuthorizationFlow(config: PlatformConfig, slug: string) {
  const provider = providerOf(slug);
  if (!PROVIDERS[provider].methods.includes("authorization")) {
    throw new PlatformError({
      type: "invalid_request_error",
      errorCode: "AUTHORIZATION_NOT_SUPPORTED",
      message: `${provider} offers no authorization flow: connect it with an API key (PUT /model-connections/${provider})`,
    });
  }
  const settings = provAOAuth(config.models);
  if (!settings) {
    throw new PlatformError({
      type: "invalid_request_error",
      errorCode: "AUTHORIZATION_NOT_CONFIGURED",
      message: `this deployment has no OAuth client for ${provider} (INLAY_PROVA_CLIENT_ID…): paste its tokens instead (POST /model-connections/provA/paste)`,
    });
  }
  return { provider, settings };
}

function targetOf(config: PlatformConfig, settings: NonNullable<ReturnType<typeof provAOAuth>>): OAuthTarget {
  return {
    // No issuer is configured: an ID token's is checked against the token endpoint's origin.
    server: { tokenEndpoint: settings.tokenUrl },
    clientId: settings.clientId,
    ...(settings.clientSecret ? { clientSecret: settings.clientSecret } : {}),
    authMethod: settings.clientSecret ? "client_secret_post" : "none",
    outbound: outboundOf(config),
  };
}

const authorizationUrlOf = (settings: NonNullable<ReturnType<typeof provAOAuth>>, state: string, codeVerifier: string): Promise<string> =>
  authorizationUrl({ authorizationEndpoint: settings.authorizationUrl, clientId: settings.clientId, redirectUri: settings.redirectUri, scopes: settings.scopes, state, codeVerifier });

function statusOf(row: AuthorizationRow, now: Date): ModelAuthorization["status"] {
  if (row.status === "pending" && row.expiresAt <= now) return "expired";
  return row.status as ModelAuthorization["status"];
}

async function toAuthorization(config: PlatformConfig, row: AuthorizationRow, state: string, now: Date): Promise<ModelAuthorization> {
  const status = statusOf(row, now);
  const settings = provAOAuth(config.models);
  let url: string | null = null;
  if (status === "pending" && settings && row.codeVerifierSealed) {
    url = await authorizationUrlOf(settings, state, openSecret(config, row.codeVerifierSealed).value);
  }
  return {
    state,
    provider: row.provider as ModelConnectionProvider,
    status,
    authorization_url: url,
    expires_at: row.expiresAt.toISOString(),
    error: status === "expired" && row.status === "pending" ? "the authorization expired before a code was given; start a new one" : row.error,
    account_id: row.providerAccountId,
    created_at: row.createdAt.toISOString(),
  };
}

export async function startAuthorization(ctx: ModelConnectionContext, auth: Auth, slug: string): Promise<ModelAuthorization> {
  const { provider, settings } = requireAuthorizationFlow(ctx.config, slug);
  const now = new Date();
  await pruneAuthorizations(ctx.prisma, auth.accountId, new Date(now.getTime() - AUTHORIZATION_KEPT_MS));
  if ((await countPendingAuthorizations(ctx.prisma, auth.accountId, now)) >= MAX_PENDING_AUTHORIZATIONS) {
    throw new PlatformError({
      type: "conflict_error",
      errorCode: "AUTHORIZATION_LIMIT",
      message: `${MAX_PENDING_AUTHORIZATIONS} authorizations are already pending; complete or cancel one first`,
      details: { limit: MAX_PENDING_AUTHORIZATIONS },
    });
  }
  // The state names the authorization in later calls; only its hash is stored.
  const state = randomBytes(32).toString("base64url");
  const codeVerifier = newCodeVerifier();
  const row = await createAuthorization(ctx.prisma, {
    stateHash: sha256Hex(state),
    accountId: auth.accountId,
    provider,
    codeVerifierSealed: sealSecret(ctx.config, codeVerifier),
    redirectUri: settings.redirectUri,
    expiresAt: new Date(now.getTime() + AUTHORIZATION_TTL_MS),
  });
  return toAuthorization(ctx.config, row, state, now);
}

async function requireAuthorization(ctx: ModelConnectionContext, auth: Auth, slug: string, state: string): Promise<AuthorizationRow> {
  const provider = providerOf(slug);
  const row = await findAuthorization(ctx.prisma, auth.accountId, provider, sha256Hex(state));
  if (!row) throw notFound(`authorization not found for ${provider}`);
  return row;
}

export async function pollAuthorization(ctx: ModelConnectionContext, auth: Auth, slug: string, state: string): Promise<ModelAuthorization> {
  const row = await requireAuthorization(ctx, auth, slug, state);
  return toAuthorization(ctx.config, row, state, new Date());
}

function notPending(row: AuthorizationRow, now: Date): PlatformError {
  const status = statusOf(row, now);
  const messages: Record<string, string> = {
    completed: "this authorization was already completed: its code cannot be used again",
    cancelled: "this authorization was cancelled; start a new one",
    expired: "this authorization expired before a code was given; start a new one",
    failed: `this authorization failed (${row.error ?? "the provider refused the code"}); start a new one`,
  };
  return new PlatformError({
    type: "conflict_error",
    errorCode: `AUTHORIZATION_${status.toUpperCase()}`,
    message: messages[status] ?? `this authorization is ${status}`,
    details: { status },
  });
}

export async function completeAuthorization(
  ctx: ModelConnectionContext,
  auth: Auth,
  slug: string,
  state: string,
  input: { code: string; project_id?: string },
): Promise<ModelAuthorization> {
  const row = await requireAuthorization(ctx, auth, slug, state);
  const now = new Date();
  if (statusOf(row, now) !== "pending" || !row.codeVerifierSealed) throw notPending(row, now);
  const { provider, settings } = requireAuthorizationFlow(ctx.config, slug);
  const codeVerifier = openSecret(ctx.config, row.codeVerifierSealed).value;
  // Claimed before the exchange, so two calls never redeem one authorization.
  if (!(await finishAuthorization(ctx.prisma, row.stateHash, now, { status: "completed" }))) {
    const again = await requireAuthorization(ctx, auth, slug, state);
    throw notPending(again, new Date());
  }
  let tokens;
  try {
    // The state named this authorization; the code is all the person brought back.
    tokens = await exchangeCode(targetOf(ctx.config, settings), { callback: new URLSearchParams({ code: input.code }), state: null, redirectUri: row.redirectUri, codeVerifier });
  } catch (error) {
    const message = error instanceof OAuthError ? error.message : "the code exchange failed";
    await updateAuthorization(ctx.prisma, row.stateHash, { status: "failed", error: message });
    throw new PlatformError({ type: "invalid_request_error", errorCode: "AUTHORIZATION_FAILED", message: `${provider} refused the code: ${message}` });
  }
  const secret: ProviderSecret = {
    access_token: tokens.accessToken,
    ...(tokens.refreshToken ? { refresh_token: tokens.refreshToken } : {}),
    ...(input.project_id ? { project_id: input.project_id } : {}),
  };
  let account: ProviderAccountRow;
  try {
    account = await addAccount(
      ctx,
      auth,
      provider,
      {
        method: "authorization",
        label: input.project_id ? `project ${input.project_id}` : "authorized",
        secretSealed: sealProviderSecret(ctx.config, secret),
        baseUrl: null,
        expiresAt: tokens.expiresAt,
      },
      false,
    );
  } catch (error) {
    await updateAuthorization(ctx.prisma, row.stateHash, {
      status: "failed",
      error: error instanceof PlatformError ? error.message : "the connection could not be saved",
    });
    throw error;
  }
  await updateAuthorization(ctx.prisma, row.stateHash, { providerAccountId: account.id });
  return toAuthorization(ctx.config, (await requireAuthorization(ctx, auth, slug, state)), state, new Date());
}

export async function cancelAuthorization(ctx: ModelConnectionContext, auth: Auth, slug: string, state: string): Promise<void> {
  const row = await requireAuthorization(ctx, auth, slug, state);
  const now = new Date();
  if (statusOf(row, now) !== "pending") throw notPending(row, now);
  if (!(await finishAuthorization(ctx.prisma, row.stateHash, now, { status: "cancelled" }))) {
    throw notPending(await requireAuthorization(ctx, auth, slug, state), new Date());
  }
}

// ---------------------------------------------------------------------------------------------
// Runs

/** The credentials a run calls its model's provider with, from the account's own connection. */
export interface OwnModelConnection {
  provider: ModelConnectionProvider;
  providerAccountId: number;
  /** The SDK provider to build: the API the credentials are for. */
  api: "openai" | "anthropic" | "openai-compatible";
  apiKey?: string;
  /** A bearer token (provA). */
  authToken?: string;
  /** null: the provider's public endpoint. */
  baseUrl: string | null;
  outbound: OutboundOptions;
  /** Marks the account failed when the provider refuses its credentials during a run. */
  onRejected: (status: number) => Promise<void>;
}

/** The account has a connection for the model's provider, but none of its accounts can be used. */
export class OwnModelConnectionError extends Error {
  override name = "OwnModelConnectionError";
}

/** The provider slugs whose connections run `modelId` (its catalogue author); none for the platform's own models. */
function providersServing(config: PlatformConfig, modelId: string): ModelConnectionProvider[] {
  const entry = findModel(config.models, modelId);
  if (!entry || entry.author === "inlay") return [];
  return MODEL_CONNECTION_PROVIDERS.filter((provider) => PROVIDERS[provider].serves === entry.author);
}

/**
 * Whether a run of `modelId` on this account is on its own model connection (the own_sub meter): a
 * connection for the model's provider exists, usable or not. Admission decides the meter with it
 * (services/runs/run-funding.ts): resolveOwnModelConnection then either calls the provider with it or
 * fails the run, never falls back to platform funding, so the balance is never the run's payer.
 */
export async function hasOwnModelConnection(prisma: Db, config: PlatformConfig, accountId: number, modelId: string): Promise<boolean> {
  const providers = providersServing(config, modelId);
  if (providers.length === 0) return false;
  return (await countConnectionsFor(prisma, accountId, providers)) > 0;
}

/**
 * The account's own credentials for `modelId`'s provider, or null when it has no connection for it
 * (the run is then funded by the platform as before). A connection that exists but cannot be used
 * (expired, refresh refused) throws OwnModelConnectionError: the run fails rather than falling back
 * to platform funding behind the account's back. When several connections serve the model's provider
 * (anthropic and provA), the preferred default wins, else the most recently connected; within one,
 * the newest usable account. With `runId`, a run funded own_sub (services/runs/run-funding.ts) whose
 * connection is gone throws too.
 */
export async function resolveOwnModelConnection(
  prisma: Db,
  config: PlatformConfig,
  accountId: number,
  modelId: string,
  runId?: number,
): Promise<OwnModelConnection | null> {
  const candidates = providersServing(config, modelId);
  if (candidates.length === 0) return null;
  const rows = await findConnectionsFor(prisma, accountId, candidates);
  if (rows.length === 0) {
    // A run admitted on the connection (own_sub: no hold) whose connection was removed since must not
    // make the platform pay for it.
    if (runId !== undefined && (await runMeter(prisma, runId)) === "own_sub") {
      throw new OwnModelConnectionError(
        "MODEL_CONNECTION_UNUSABLE: the run was started on the account's own model connection, which has since been removed; start a new run to use platform funding",
      );
    }
    return null;
  }
  const row = rows.find((candidate) => candidate.preferredDefault) ?? rows.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())[0]!;
  const provider = row.provider as ModelConnectionProvider;
  const now = new Date();
  const usable = [...row.accounts].reverse().find((account) => accountStatus(config, account, now) === "connected");
  if (!usable) {
    const last = row.accounts.at(-1);
    const why = last ? (last.lastError ?? `its account is ${accountStatus(config, last, now)}`) : "it has no account";
    throw new OwnModelConnectionError(
      `MODEL_CONNECTION_UNUSABLE: the account's ${provider} model connection cannot be used (${why}); connect it again, or DELETE /model-connections/${provider} to run on platform funding`,
    );
  }
  let secret = openProviderSecret(config, usable.secretSealed);
  if (refreshDue(usable, secret)) secret = await freshProviderSecret(prisma, config, provider, usable);
  const common = {
    provider,
    providerAccountId: usable.id,
    outbound: outboundOf(config),
    onRejected: async (status: number) => {
      await updateProviderAccount(prisma, accountId, usable.id, { status: "failed", lastError: `the provider refused the credentials (HTTP ${status})` });
    },
  };
  if (provider === "provA") {
    return { ...common, api: "anthropic", authToken: secret.access_token, baseUrl: config.models.connections?.provA?.apiBaseUrl ?? null };
  }
  return { ...common, api: provider, apiKey: secret.api_key, baseUrl: usable.baseUrl };
}

/** A token pair expiring within a minute, with a refresh token: refresh it before the call. */
const refreshDue = (account: Pick<ProviderAccountRow, "method" | "expiresAt">, secret: ProviderSecret) =>
  account.method !== "api_key" && accessTokenState(account.expiresAt, secret.refresh_token !== undefined) === "refresh";

/**
 * The account's token pair, refreshed once across concurrent runs and instances (services/refresh-claim.ts):
 * provA rotates refresh tokens, so two runs refreshing with the same one would have the second refused
 * and the account marked failed. The caller that claims the refresh reads the row again (another may
 * have just refreshed it), refreshes and stores; the others wait for it and use what it stored.
 */
async function freshProviderSecret(
  prisma: Db,
  config: PlatformConfig,
  provider: ModelConnectionProvider,
  account: ProviderAccountRow,
): Promise<ProviderSecret> {
  const deadline = Date.now() + REFRESH_WAIT_MS;
  const unusable = (why: string) =>
    new OwnModelConnectionError(`MODEL_CONNECTION_UNUSABLE: the account's ${provider} model connection ${why}; connect it again`);
  for (;;) {
    const claimed = await claimProviderAccountRefresh(prisma, account.accountId, account.id, REFRESH_CLAIM_MS);
    const row = await findProviderAccount(prisma, account.accountId, account.id);
    if (!row) throw unusable("was removed");
    if (row.status === "failed") {
      if (claimed) await updateProviderAccount(prisma, row.accountId, row.id, { refreshingUntil: null });
      throw unusable(`could not be renewed (${row.lastError ?? "its account failed"})`);
    }
    const secret = openProviderSecret(config, row.secretSealed);
    if (!refreshDue(row, secret)) {
      if (claimed) await updateProviderAccount(prisma, row.accountId, row.id, { refreshingUntil: null });
      return secret;
    }
    if (claimed) return refreshProviderAccount(prisma, config, provider, row, secret);
    if (Date.now() > deadline) throw unusable("is being renewed by another run for too long; try again");
    await waitForRefreshClaim(async () => (await findProviderAccount(prisma, account.accountId, account.id))?.refreshingUntil, deadline);
  }
}

/** Holds the refresh claim: refreshes and stores the new pair, and ends the claim either way. */
async function refreshProviderAccount(
  prisma: Db,
  config: PlatformConfig,
  provider: ModelConnectionProvider,
  account: Pick<ProviderAccountRow, "id" | "accountId">,
  secret: ProviderSecret,
): Promise<ProviderSecret> {
  const settings = provAOAuth(config.models);
  if (!settings) {
    await updateProviderAccount(prisma, account.accountId, account.id, { refreshingUntil: null });
    return secret;
  }
  try {
    const tokens = await refreshTokens(targetOf(config, settings), secret.refresh_token!);
    const next: ProviderSecret = { ...secret, access_token: tokens.accessToken, refresh_token: tokens.refreshToken ?? secret.refresh_token };
    await updateProviderAccount(prisma, account.accountId, account.id, {
      secretSealed: sealProviderSecret(config, next),
      expiresAt: tokens.expiresAt,
      status: "connected",
      lastError: null,
      refreshingUntil: null,
    });
    return next;
  } catch (error) {
    const message = error instanceof OAuthError ? error.message : "the token refresh failed";
    await updateProviderAccount(prisma, account.accountId, account.id, { status: "failed", lastError: message, refreshingUntil: null });
    throw new OwnModelConnectionError(
      `MODEL_CONNECTION_UNUSABLE: the account's ${provider} model connection could not be renewed (${message}); connect it again`,
    );
  }
}
