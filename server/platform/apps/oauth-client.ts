// The OAuth 2.0 client side of app connections, on oauth4webapi: the authorization URL (PKCE S256
// always), the code exchange, refresh and revocation. Every request leaves through guardedFetch, so
// the catalogue's URLs (a vendor's included) are held to the platform's outbound rules.
import * as oauth from "oauth4webapi";
import type { PlatformConfig } from "../platform-config";
import { guardedFetch } from "../outbound/guarded-fetch";
import { appMayUseLoopback, type AppDefinition, type OAuthSettings } from "./definition";

export interface TokenSet {
  accessToken: string;
  refreshToken?: string;
  tokenType: string;
  /** Null when the app did not say. */
  expiresAt: Date | null;
  /** What the app granted, when it said (else what was asked). */
  scopes: string[] | null;
}

/** The authorization server refused or failed. `code` is its OAuth error (invalid_grant, …) or ours. */
export class OAuthFlowError extends Error {
  override name = "OAuthFlowError";
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export const requireOAuth = (app: AppDefinition): OAuthSettings & { clientId: string; clientSecret: string } => {
  const settings = app.oauth;
  if (!settings?.clientId || !settings.clientSecret) throw new OAuthFlowError("app_not_configured", `${app.slug} has no OAuth client credentials`);
  return settings as OAuthSettings & { clientId: string; clientSecret: string };
};

function serverOf(settings: OAuthSettings): oauth.AuthorizationServer {
  return {
    issuer: settings.issuer ?? new URL(settings.authorizationUrl).origin,
    authorization_endpoint: settings.authorizationUrl,
    token_endpoint: settings.tokenUrl,
    ...(settings.revocationUrl ? { revocation_endpoint: settings.revocationUrl } : {}),
  };
}

const clientAuthOf = (settings: OAuthSettings & { clientSecret: string }) =>
  settings.tokenAuthMethod === "client_secret_basic" ? oauth.ClientSecretBasic(settings.clientSecret) : oauth.ClientSecretPost(settings.clientSecret);

/** oauth4webapi's fetch, through guardedFetch (loopback and plain http only when the config allows). */
function requestOptions(config: PlatformConfig, app: AppDefinition) {
  const allow = appMayUseLoopback(config, app);
  const fetcher = async (url: string, init: { body?: unknown; headers: Record<string, string>; method: string }) => {
    const body = init.body === undefined || init.body === null ? undefined : init.body instanceof URLSearchParams ? init.body.toString() : String(init.body);
    const response = await guardedFetch(url, { method: init.method, headers: init.headers, body }, { allowHttp: allow, allowLoopback: allow, timeoutMs: 15_000 });
    const empty = response.status === 204 || response.status === 304;
    return new Response(empty ? null : response.body, { status: response.status, headers: response.headers });
  };
  return { [oauth.customFetch]: fetcher as unknown as typeof fetch, [oauth.allowInsecureRequests]: allow };
}

export async function createPkce(): Promise<{ verifier: string; challenge: string }> {
  const verifier = oauth.generateRandomCodeVerifier();
  return { verifier, challenge: await oauth.calculatePKCECodeChallenge(verifier) };
}

export function authorizationUrlOf(app: AppDefinition, input: { redirectUri: string; state: string; codeChallenge: string }): string {
  const settings = requireOAuth(app);
  const url = new URL(settings.authorizationUrl);
  for (const [name, value] of Object.entries(settings.authorizationParams ?? {})) url.searchParams.set(name, value);
  url.searchParams.set("client_id", settings.clientId);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("redirect_uri", input.redirectUri);
  if (settings.scopes.length > 0) url.searchParams.set("scope", settings.scopes.join(settings.scopeSeparator ?? " "));
  url.searchParams.set("state", input.state);
  url.searchParams.set("code_challenge", input.codeChallenge);
  url.searchParams.set("code_challenge_method", "S256");
  return url.toString();
}

/** The error an oauth4webapi failure stands for, without any of the response body beyond the OAuth error. */
function toFlowError(error: unknown, what: string): OAuthFlowError {
  if (error instanceof OAuthFlowError) return error;
  if (error instanceof oauth.ResponseBodyError) {
    return new OAuthFlowError(error.error, `${what}: the authorization server answered ${error.status} ${error.error}${error.error_description ? ` (${error.error_description})` : ""}`);
  }
  if (error instanceof oauth.AuthorizationResponseError) {
    return new OAuthFlowError(error.error, `${what}: ${error.error}${error.error_description ? ` (${error.error_description})` : ""}`);
  }
  // Some servers (GitHub) answer errors with 200 and {error}: the body's error code, nothing else.
  const body = (error as { cause?: { body?: { error?: unknown; error_description?: unknown } } } | null)?.cause?.body;
  if (body && typeof body.error === "string") {
    return new OAuthFlowError(body.error, `${what}: the authorization server answered ${body.error}${typeof body.error_description === "string" ? ` (${body.error_description})` : ""}`);
  }
  const name = error instanceof Error ? error.name : "error";
  const message = error instanceof Error && (error.name === "OutboundError" || error.name === "OperationProcessingError") ? error.message : "the request failed";
  return new OAuthFlowError(name === "OutboundError" ? "unreachable" : "invalid_response", `${what}: ${message}`);
}

function toTokenSet(response: oauth.TokenEndpointResponse, fallbackScopes: string[]): TokenSet {
  const scopes = typeof response.scope === "string" ? response.scope.split(/[\s,]+/).filter(Boolean) : null;
  return {
    accessToken: response.access_token,
    refreshToken: response.refresh_token,
    tokenType: response.token_type,
    expiresAt: typeof response.expires_in === "number" ? new Date(Date.now() + response.expires_in * 1000) : null,
    scopes: scopes ?? fallbackScopes,
  };
}

const tokenTypes = (settings: OAuthSettings): oauth.RecognizedTokenTypes =>
  Object.fromEntries((settings.extraTokenTypes ?? []).map((type) => [type.toLowerCase(), () => {}]));

/**
 * Exchanges an authorization code. `callback` holds the parameters the authorization server sent
 * (code, and iss when it sends one); the state was checked by the caller against its stored hash.
 */
export async function exchangeCode(
  config: PlatformConfig,
  app: AppDefinition,
  input: { callback: URLSearchParams; state: string | null; redirectUri: string; codeVerifier: string },
): Promise<TokenSet> {
  const settings = requireOAuth(app);
  const as = serverOf(settings);
  const client: oauth.Client = { client_id: settings.clientId };
  const parameters = new URLSearchParams(input.callback);
  // iss is checked only against a configured issuer (RFC 9207); apps without one send none.
  if (!settings.issuer) parameters.delete("iss");
  try {
    const validated = oauth.validateAuthResponse(as, client, parameters, input.state ?? oauth.skipStateCheck);
    const response = await oauth.authorizationCodeGrantRequest(as, client, clientAuthOf(settings), validated, input.redirectUri, input.codeVerifier, requestOptions(config, app));
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, response, { recognizedTokenTypes: tokenTypes(settings) });
    return toTokenSet(tokens, settings.scopes);
  } catch (error) {
    throw toFlowError(error, "code exchange");
  }
}

export async function refreshTokens(config: PlatformConfig, app: AppDefinition, refreshToken: string, currentScopes: string[]): Promise<TokenSet> {
  const settings = requireOAuth(app);
  const as = serverOf(settings);
  const client: oauth.Client = { client_id: settings.clientId };
  try {
    const response = await oauth.refreshTokenGrantRequest(as, client, clientAuthOf(settings), refreshToken, requestOptions(config, app));
    const tokens = await oauth.processRefreshTokenResponse(as, client, response, { recognizedTokenTypes: tokenTypes(settings) });
    return toTokenSet(tokens, currentScopes);
  } catch (error) {
    throw toFlowError(error, "token refresh");
  }
}

/** RFC 7009 revocation, when the app has an endpoint; false when it has none. */
export async function revokeToken(config: PlatformConfig, app: AppDefinition, token: string, hint: "access_token" | "refresh_token"): Promise<boolean> {
  const settings = requireOAuth(app);
  if (!settings.revocationUrl) return false;
  const as = serverOf(settings);
  const client: oauth.Client = { client_id: settings.clientId };
  try {
    const response = await oauth.revocationRequest(as, client, clientAuthOf(settings), token, { ...requestOptions(config, app), additionalParameters: { token_type_hint: hint } });
    await oauth.processRevocationResponse(response);
    return true;
  } catch (error) {
    throw toFlowError(error, "revocation");
  }
}
