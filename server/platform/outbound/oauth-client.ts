// The platform's one OAuth 2.0 client, on oauth4webapi: the authorization URL (PKCE S256 and state,
// always), the code exchange, refresh and revocation, one token set and one error. App connections,
// tool servers and model connections keep their own state and call this. Every request leaves through
// the outbound guard with the caller's rules (loopback and plain http only where they allow it).
import * as oauth from "oauth4webapi";
import { guardedStreamingFetch, OutboundError, type OutboundOptions } from "./guarded-fetch";

/** Where the authorization server takes requests. */
export interface OAuthServerEndpoints {
  /**
   * Its issuer identifier, when known: an `iss` on the callback (RFC 9207) and an ID token's iss must
   * match it. Unknown (GitHub and Slack publish none): the callback's iss is not checked.
   */
  issuer?: string;
  authorizationEndpoint?: string;
  tokenEndpoint: string;
  /** RFC 7009; revocation is skipped without one. */
  revocationEndpoint?: string;
}

export type ClientAuthMethod = "client_secret_basic" | "client_secret_post" | "none";

/** A request's authorization server, client, outbound rules and what it sends besides the grant. */
export interface OAuthTarget {
  server: OAuthServerEndpoints;
  clientId: string;
  clientSecret?: string;
  /** How the client authenticates at the token endpoint; "none" (or no secret) for a public client. */
  authMethod: ClientAuthMethod;
  outbound: OutboundOptions;
  /** RFC 8707 resource indicator, sent on every token request (an MCP server's URL). */
  resource?: string;
  /** token_type values besides bearer the token endpoint answers (Slack: bot, user). */
  extraTokenTypes?: string[];
}

/** What a token endpoint granted. */
export interface TokenSet {
  accessToken: string;
  /** Absent when the server gave none (a refresh answer without one keeps the old: the caller's to keep). */
  refreshToken?: string;
  tokenType: string;
  /** Null when the server did not say. */
  expiresAt: Date | null;
  /** The scopes granted, or null when the server did not say (then what was asked stands). */
  scope: string[] | null;
}

/**
 * The authorization server refused or could not be used. `code` is its OAuth error (invalid_grant,
 * invalid_client, server_error, access_denied…) or ours: `network` (unreachable, refused by the
 * outbound guard, timed out) or `invalid_response`. The message names the operation and the server's
 * error and description, never a token or a response body.
 */
export class OAuthError extends Error {
  override name = "OAuthError";
  constructor(
    readonly code: string,
    message: string,
    readonly description?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Refresh this long before expiry, when there is a refresh token to refresh with. */
export const REFRESH_MARGIN_MS = 60_000;

/**
 * What to do with an access token now: use it, refresh it first (due within the margin, and a
 * refresh token exists), or it has expired (no refresh token, and past its expiry: a token without
 * one is used until it actually expires).
 */
export function accessTokenState(expiresAt: Date | number | null | undefined, canRefresh: boolean, now = Date.now()): "valid" | "refresh" | "expired" {
  if (expiresAt === null || expiresAt === undefined) return "valid";
  const at = typeof expiresAt === "number" ? expiresAt : expiresAt.getTime();
  if (canRefresh) return at - now <= REFRESH_MARGIN_MS ? "refresh" : "valid";
  return at <= now ? "expired" : "valid";
}

type HttpOptions = { [oauth.customFetch]: typeof fetch; [oauth.allowInsecureRequests]: boolean };

/** oauth4webapi's requests through the guard; plain http only where the outbound rules allow it. */
export function oauthHttpOptions(outbound: OutboundOptions): HttpOptions {
  return { [oauth.customFetch]: guardedStreamingFetch(outbound), [oauth.allowInsecureRequests]: outbound.allowHttp === true };
}

export const newCodeVerifier = (): string => oauth.generateRandomCodeVerifier();

/**
 * The URL to send the person to: `params` first (an app's access_type and the like), then the
 * standard ones, the PKCE S256 challenge of `codeVerifier`, and the resource indicator. Asking for
 * offline_access adds prompt=consent: OpenID providers ignore offline_access without it (OIDC Core
 * §11) and would issue no refresh token.
 */
export async function authorizationUrl(input: {
  authorizationEndpoint: string;
  clientId: string;
  redirectUri: string;
  scopes: string[];
  /** " " by default; some apps take ",". */
  scopeSeparator?: string;
  state: string;
  codeVerifier: string;
  resource?: string;
  params?: Record<string, string>;
}): Promise<string> {
  const url = new URL(input.authorizationEndpoint);
  for (const [name, value] of Object.entries(input.params ?? {})) url.searchParams.set(name, value);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", input.clientId);
  url.searchParams.set("redirect_uri", input.redirectUri);
  if (input.scopes.length > 0) url.searchParams.set("scope", input.scopes.join(input.scopeSeparator ?? " "));
  url.searchParams.set("state", input.state);
  url.searchParams.set("code_challenge", await oauth.calculatePKCECodeChallenge(input.codeVerifier));
  url.searchParams.set("code_challenge_method", "S256");
  if (input.resource) url.searchParams.set("resource", input.resource);
  if (input.scopes.includes("offline_access")) {
    const prompts = (url.searchParams.get("prompt") ?? "").split(" ").filter(Boolean);
    // prompt=none cannot be combined with another value; a caller that set it keeps it.
    if (!prompts.includes("consent") && !prompts.includes("none")) url.searchParams.set("prompt", [...prompts, "consent"].join(" "));
  }
  return url.toString();
}

function serverOf(server: OAuthServerEndpoints): oauth.AuthorizationServer {
  return {
    issuer: server.issuer ?? new URL(server.authorizationEndpoint ?? server.tokenEndpoint).origin,
    ...(server.authorizationEndpoint ? { authorization_endpoint: server.authorizationEndpoint } : {}),
    token_endpoint: server.tokenEndpoint,
    ...(server.revocationEndpoint ? { revocation_endpoint: server.revocationEndpoint } : {}),
  };
}

function clientAuthOf(target: OAuthTarget): oauth.ClientAuth {
  if (target.authMethod === "none" || !target.clientSecret) return oauth.None();
  return target.authMethod === "client_secret_basic" ? oauth.ClientSecretBasic(target.clientSecret) : oauth.ClientSecretPost(target.clientSecret);
}

const tokenTypesOf = (target: OAuthTarget): oauth.RecognizedTokenTypes =>
  Object.fromEntries((target.extraTokenTypes ?? []).map((type) => [type.toLowerCase(), () => {}]));

function requestOptions(target: OAuthTarget, extra: Record<string, string> = {}) {
  const parameters = { ...extra, ...(target.resource ? { resource: target.resource } : {}) };
  return { ...oauthHttpOptions(target.outbound), ...(Object.keys(parameters).length > 0 ? { additionalParameters: parameters } : {}) };
}

function tokenSetOf(response: oauth.TokenEndpointResponse): TokenSet {
  return {
    accessToken: response.access_token,
    ...(response.refresh_token ? { refreshToken: response.refresh_token } : {}),
    tokenType: response.token_type,
    expiresAt: typeof response.expires_in === "number" ? new Date(Date.now() + response.expires_in * 1000) : null,
    scope: typeof response.scope === "string" ? response.scope.split(/[\s,]+/).filter(Boolean) : null,
  };
}

/**
 * Exchanges an authorization code. `callback` holds what the authorization server sent (code, and
 * iss when it sends one); `state` is the one expected, or null when the caller already checked it.
 */
export async function exchangeCode(
  target: OAuthTarget,
  input: { callback: URLSearchParams; state: string | null; redirectUri: string; codeVerifier: string },
): Promise<TokenSet> {
  const as = serverOf(target.server);
  const client: oauth.Client = { client_id: target.clientId };
  const parameters = new URLSearchParams(input.callback);
  if (!target.server.issuer) parameters.delete("iss");
  try {
    const validated = oauth.validateAuthResponse(as, client, parameters, input.state ?? oauth.skipStateCheck);
    const response = await oauth.authorizationCodeGrantRequest(as, client, clientAuthOf(target), validated, input.redirectUri, input.codeVerifier, requestOptions(target));
    return tokenSetOf(await oauth.processAuthorizationCodeResponse(as, client, response, { recognizedTokenTypes: tokenTypesOf(target) }));
  } catch (error) {
    throw toOAuthError(error, "code exchange");
  }
}

export async function refreshTokens(target: OAuthTarget, refreshToken: string): Promise<TokenSet> {
  const as = serverOf(target.server);
  const client: oauth.Client = { client_id: target.clientId };
  try {
    const response = await oauth.refreshTokenGrantRequest(as, client, clientAuthOf(target), refreshToken, requestOptions(target));
    return tokenSetOf(await oauth.processRefreshTokenResponse(as, client, response, { recognizedTokenTypes: tokenTypesOf(target) }));
  } catch (error) {
    throw toOAuthError(error, "token refresh");
  }
}

/** RFC 7009 revocation; false (nothing sent) when the server has no revocation endpoint. */
export async function revokeToken(target: OAuthTarget, token: string, hint: "access_token" | "refresh_token"): Promise<boolean> {
  if (!target.server.revocationEndpoint) return false;
  const as = serverOf(target.server);
  const client: oauth.Client = { client_id: target.clientId };
  try {
    const response = await oauth.revocationRequest(as, client, clientAuthOf(target), token, requestOptions(target, { token_type_hint: hint }));
    await oauth.processRevocationResponse(response);
    return true;
  } catch (error) {
    throw toOAuthError(error, "revocation");
  }
}

function causeOfType<T extends Error>(error: unknown, type: new (...args: never[]) => T): T | undefined {
  for (let e: unknown = error; e instanceof Error; e = e.cause) if (e instanceof type) return e;
  return undefined;
}

/** The OAuthError an oauth4webapi (or guard) failure during `what` stands for, without any response body. */
export function toOAuthError(error: unknown, what: string): OAuthError {
  if (error instanceof OAuthError) return error;
  const outbound = causeOfType(error, OutboundError);
  if (outbound) return new OAuthError("network", `${what}: ${outbound.message}`, undefined, { cause: error });
  const described = (description: unknown) => (typeof description === "string" && description !== "" ? ` (${description})` : "");
  if (error instanceof oauth.ResponseBodyError) {
    return new OAuthError(error.error, `${what}: the authorization server answered ${error.status} ${error.error}${described(error.error_description)}`, error.error_description, { cause: error });
  }
  if (error instanceof oauth.AuthorizationResponseError) {
    return new OAuthError(error.error, `${what}: ${error.error}${described(error.error_description)}`, error.error_description, { cause: error });
  }
  // Some servers (GitHub) answer errors with 200 and {error}: the body's error code, nothing else.
  const body = (error as { cause?: { body?: { error?: unknown; error_description?: unknown } } } | null)?.cause?.body;
  if (body && typeof body.error === "string") {
    const description = typeof body.error_description === "string" ? body.error_description : undefined;
    return new OAuthError(body.error, `${what}: the authorization server answered ${body.error}${described(description)}`, description, { cause: error });
  }
  if (error instanceof oauth.OperationProcessingError || error instanceof TypeError) {
    return new OAuthError("invalid_response", `${what}: ${error.message}`, undefined, { cause: error });
  }
  return new OAuthError("invalid_response", `${what}: the authorization server's answer could not be used`, undefined, { cause: error });
}
