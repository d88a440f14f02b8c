// Per-end-user OAuth 2.0 (authorization code with PKCE S256) for tool servers, on oauth4webapi. An MCP
// server's authorization server is discovered as the MCP authorization spec asks: its protected-resource
// metadata (RFC 9728, from the 401's WWW-Authenticate or the well-known URLs), then the authorization
// server's metadata (RFC 8414, else OpenID discovery), dynamic client registration (RFC 7591) when
// auth_config has no client_id, and the resource indicator (RFC 8707) on every authorization and token
// request. A rest_api server names its endpoints in auth_config. The authorization URL, the code
// exchange and refresh are the platform's one OAuth client's (outbound/oauth-client.ts); every request
// leaves through the outbound guard. The caller stores what this returns, sealed.
import * as oauth from "oauth4webapi";
import { bareHost } from "../outbound/address-guard";
import { checkOutboundUrl, OutboundError, type OutboundOptions } from "../outbound/guarded-fetch";
import {
  authorizationUrl,
  type ClientAuthMethod,
  exchangeCode,
  newCodeVerifier,
  OAuthError,
  oauthHttpOptions,
  type OAuthTarget,
  refreshTokens,
  type TokenSet,
  toOAuthError,
} from "../outbound/oauth-client";
import { ToolServerError } from "./types";

export interface OAuthServerInput {
  kind: "rest_api" | "mcp_http" | "mcp_sse";
  url: string;
  /** The server's auth_config (client_id, scopes, and for rest_api authorization_url and token_url). */
  authConfig: Record<string, unknown>;
  /** The server's client secret (its write-only `secret`), when it has one. */
  clientSecret?: string;
}

/** Kept (sealed) between start and complete, and with the tokens for refreshes. */
export interface OAuthClientState {
  tokenEndpoint: string;
  clientId: string;
  clientSecret?: string;
  /** "client_secret_basic" | "client_secret_post" | "none" */
  tokenEndpointAuthMethod: string;
  /** RFC 8707 resource indicator, for MCP servers. */
  resource?: string;
  scopes: string[];
  /** The authorization server's issuer (checks an ID token's iss when one comes back). */
  issuer?: string;
}

export interface OAuthTokens {
  accessToken: string;
  refreshToken?: string;
  /** Epoch ms. */
  expiresAt?: number;
  scopes: string[];
}

const CLIENT_NAME = "Inlay";
const authMethods = ["client_secret_basic", "client_secret_post", "none"] as const;

export async function startServerOAuth(input: {
  server: OAuthServerInput;
  redirectUri: string;
  state: string;
  outbound: OutboundOptions;
}): Promise<{ authorizationUrl: string; client: OAuthClientState; codeVerifier: string }> {
  const { server, redirectUri, state, outbound } = input;
  const http = oauthHttpOptions(outbound);
  try {
    const setup = server.kind === "rest_api" ? restApiSetup(server, outbound) : await mcpSetup(server, redirectUri, http, outbound);
    const codeVerifier = newCodeVerifier();
    const url = await authorizationUrl({
      authorizationEndpoint: setup.authorizationEndpoint,
      clientId: setup.client.clientId,
      redirectUri,
      scopes: setup.client.scopes,
      state,
      codeVerifier,
      ...(setup.client.resource ? { resource: setup.client.resource } : {}),
    });
    return { authorizationUrl: url, client: setup.client, codeVerifier };
  } catch (error) {
    throw toToolServerError(error, "authorization");
  }
}

export async function completeServerOAuth(input: {
  client: OAuthClientState;
  code: string;
  codeVerifier: string;
  redirectUri: string;
  outbound: OutboundOptions;
}): Promise<OAuthTokens> {
  const { client, outbound } = input;
  try {
    checkOutboundUrl(client.tokenEndpoint, outbound);
    // The caller checked the state against its own; the code is all the callback brought here.
    const tokens = await exchangeCode(targetOf(client, outbound), {
      callback: new URLSearchParams({ code: input.code }),
      state: null,
      redirectUri: input.redirectUri,
      codeVerifier: input.codeVerifier,
    });
    return tokensOf(tokens, client.scopes);
  } catch (error) {
    throw toToolServerError(error, "code exchange");
  }
}

export async function refreshServerOAuth(input: {
  client: OAuthClientState;
  refreshToken: string;
  outbound: OutboundOptions;
}): Promise<OAuthTokens> {
  const { client, outbound } = input;
  try {
    checkOutboundUrl(client.tokenEndpoint, outbound);
    return tokensOf(await refreshTokens(targetOf(client, outbound), input.refreshToken), client.scopes);
  } catch (error) {
    throw toToolServerError(error, "token refresh");
  }
}

// ---------------------------------------------------------------------------------------------------
// Setups: where to send the person, and the client that will redeem the code

interface Setup {
  authorizationEndpoint: string;
  client: OAuthClientState;
}

type HttpOptions = ReturnType<typeof oauthHttpOptions>;

function stringOf(config: Record<string, unknown>, key: string): string | undefined {
  const value = config[key];
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

function scopesOf(config: Record<string, unknown>): string[] | undefined {
  const value = config.scopes;
  if (Array.isArray(value)) return value.filter((scope): scope is string => typeof scope === "string" && scope !== "");
  if (typeof value === "string") return value.split(/\s+/).filter(Boolean);
  return undefined;
}

/** auth_config.token_endpoint_auth_method when given; else what the server supports, post first (as apps do). */
function authMethodOf(config: Record<string, unknown>, secret: string | undefined, supported: string[] | undefined, fallback: string): string {
  if (!secret) return "none";
  const given = stringOf(config, "token_endpoint_auth_method");
  if (given) {
    if (!(authMethods as readonly string[]).includes(given)) throw new ToolServerError("protocol", `auth_config.token_endpoint_auth_method must be one of ${authMethods.join(", ")}`);
    return given;
  }
  if (supported?.includes("client_secret_post")) return "client_secret_post";
  if (supported?.includes("client_secret_basic")) return "client_secret_basic";
  return fallback;
}

function restApiSetup(server: OAuthServerInput, outbound: OutboundOptions): Setup {
  const config = server.authConfig;
  const required = (key: string) => {
    const value = stringOf(config, key);
    if (!value) throw new ToolServerError("protocol", `auth_config.${key} is required for OAuth on a rest_api server`);
    return value;
  };
  const authorizationEndpoint = checkOutboundUrl(required("authorization_url"), outbound).href;
  const tokenEndpoint = checkOutboundUrl(required("token_url"), outbound).href;
  return {
    authorizationEndpoint,
    client: {
      tokenEndpoint,
      clientId: required("client_id"),
      ...(server.clientSecret ? { clientSecret: server.clientSecret } : {}),
      tokenEndpointAuthMethod: authMethodOf(config, server.clientSecret, undefined, "client_secret_post"),
      scopes: scopesOf(config) ?? [],
    },
  };
}

async function mcpSetup(server: OAuthServerInput, redirectUri: string, http: HttpOptions, outbound: OutboundOptions): Promise<Setup> {
  const serverUrl = checkOutboundUrl(server.url, outbound);
  const protectedResource = await protectedResourceOf(serverUrl, http[oauth.customFetch]);
  // Without protected-resource metadata, the 2025-03-26 revision of the spec: the server's origin is the issuer.
  const issuer = new URL(protectedResource?.authorizationServer ?? serverUrl.origin);
  const as = await authorizationServerOf(issuer, http);
  if (!as.authorization_endpoint || !as.token_endpoint) {
    throw new ToolServerError("protocol", `the authorization server ${issuer.href} names no authorization or token endpoint`);
  }
  if (!as.code_challenge_methods_supported?.includes("S256")) {
    throw new ToolServerError("protocol", `the authorization server ${issuer.href} does not offer PKCE with S256, which MCP requires`);
  }
  const scopes = scopesOf(server.authConfig) ?? protectedResource?.scopes ?? [];
  const resource = protectedResource?.resource;
  const supported = as.token_endpoint_auth_methods_supported;

  const configuredId = stringOf(server.authConfig, "client_id");
  let client: OAuthClientState;
  if (configuredId) {
    client = {
      tokenEndpoint: as.token_endpoint,
      clientId: configuredId,
      ...(server.clientSecret ? { clientSecret: server.clientSecret } : {}),
      // RFC 8414: a server that lists no methods takes client_secret_basic.
      tokenEndpointAuthMethod: authMethodOf(server.authConfig, server.clientSecret, supported, "client_secret_basic"),
      scopes,
    };
  } else {
    client = { ...(await registerClient(as, redirectUri, http)), tokenEndpoint: as.token_endpoint, scopes };
  }
  return { authorizationEndpoint: as.authorization_endpoint, client: { ...client, issuer: as.issuer, ...(resource ? { resource } : {}) } };
}

/** RFC 7591: a public client (PKCE, no secret) where the server allows one, else a confidential one. */
async function registerClient(as: oauth.AuthorizationServer, redirectUri: string, http: HttpOptions) {
  if (!as.registration_endpoint) {
    throw new ToolServerError("protocol", `the authorization server ${as.issuer} offers no dynamic client registration: give auth_config.client_id (and the secret)`);
  }
  const supported = as.token_endpoint_auth_methods_supported;
  const method = !supported || supported.includes("none") ? "none" : supported.includes("client_secret_post") ? "client_secret_post" : "client_secret_basic";
  const response = await oauth.dynamicClientRegistrationRequest(
    as,
    {
      client_name: CLIENT_NAME,
      redirect_uris: [redirectUri],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: method,
      // No `scope`: servers refuse registrations naming scopes they list only for a resource.
    },
    http,
  );
  const registered = await oauth.processDynamicClientRegistrationResponse(response);
  const secret = typeof registered.client_secret === "string" ? registered.client_secret : undefined;
  const granted = typeof registered.token_endpoint_auth_method === "string" ? registered.token_endpoint_auth_method : method;
  return {
    clientId: registered.client_id,
    ...(secret ? { clientSecret: secret } : {}),
    tokenEndpointAuthMethod: secret ? granted : "none",
  };
}

interface ProtectedResource {
  resource: string;
  authorizationServer: string;
  scopes?: string[];
}

/**
 * RFC 9728 metadata of the MCP server: where its 401 points, else the path-inserted and the root
 * well-known URLs. Null when it publishes none. The resource must be the server's URL or a prefix of it
 * on the same origin (a server names its origin as often as its endpoint).
 */
async function protectedResourceOf(serverUrl: URL, fetcher: typeof fetch): Promise<ProtectedResource | null> {
  // Unauthenticated and without a body, so an unprotected server starts no session for it.
  const probe = await fetcher(serverUrl, { method: "GET", headers: { accept: "text/event-stream" } });
  await probe.body?.cancel();
  const challenge = probe.status === 401 ? bearerChallengeOf(probe.headers.get("www-authenticate")) : {};

  const candidates: URL[] = [];
  if (challenge.resource_metadata) {
    try {
      candidates.push(new URL(challenge.resource_metadata, serverUrl));
    } catch {
      throw new ToolServerError("protocol", `${bareHost(serverUrl.hostname)} points at an invalid resource_metadata URL`);
    }
  }
  const path = serverUrl.pathname === "/" ? "" : serverUrl.pathname.replace(/\/$/, "");
  if (path) candidates.push(new URL(`/.well-known/oauth-protected-resource${path}`, serverUrl));
  candidates.push(new URL("/.well-known/oauth-protected-resource", serverUrl));

  for (const candidate of candidates) {
    const response = await fetcher(candidate, { method: "GET", headers: { accept: "application/json" } });
    if (response.status !== 200) {
      await response.body?.cancel();
      continue;
    }
    let metadata: Partial<oauth.ResourceServer>;
    try {
      metadata = (await response.json()) as Partial<oauth.ResourceServer>;
    } catch {
      continue;
    }
    if (typeof metadata.resource !== "string" || !coversUrl(metadata.resource, serverUrl)) {
      throw new ToolServerError("protocol", `the protected-resource metadata of ${bareHost(serverUrl.hostname)} is for another resource`);
    }
    const authorizationServer = metadata.authorization_servers?.find((issuer) => typeof issuer === "string");
    if (!authorizationServer) throw new ToolServerError("protocol", `the protected-resource metadata of ${bareHost(serverUrl.hostname)} names no authorization server`);
    const scopes = challenge.scope ? challenge.scope.split(/\s+/).filter(Boolean) : metadata.scopes_supported;
    return { resource: metadata.resource, authorizationServer, ...(scopes ? { scopes } : {}) };
  }
  return null;
}

function coversUrl(resource: string, serverUrl: URL): boolean {
  let parsed: URL;
  try {
    parsed = new URL(resource);
  } catch {
    return false;
  }
  if (parsed.origin !== serverUrl.origin || parsed.hash) return false;
  const prefix = parsed.pathname.endsWith("/") ? parsed.pathname : `${parsed.pathname}/`;
  return serverUrl.pathname === parsed.pathname || serverUrl.pathname.startsWith(prefix);
}

/** The auth-params of a Bearer challenge (RFC 6750 / RFC 9728 §5.1). */
function bearerChallengeOf(header: string | null): Record<string, string> {
  const bearer = header?.match(/(?:^|,\s*)Bearer\s+(.*)$/i)?.[1];
  if (!bearer) return {};
  const params: Record<string, string> = {};
  for (const [, name, quoted, token] of bearer.matchAll(/([A-Za-z0-9_-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))/g)) {
    params[name!.toLowerCase()] = quoted !== undefined ? quoted.replace(/\\(.)/g, "$1") : token!;
  }
  return params;
}

/** RFC 8414 metadata, else OpenID Connect discovery, of the issuer. */
async function authorizationServerOf(issuer: URL, http: HttpOptions): Promise<oauth.AuthorizationServer> {
  let last: unknown;
  for (const algorithm of ["oauth2", "oidc"] as const) {
    try {
      return await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { ...http, algorithm }));
    } catch (error) {
      if (causeOfType(error, OutboundError)) throw error;
      last = error;
    }
  }
  throw new ToolServerError("protocol", `no OAuth authorization server metadata at ${issuer.href} (RFC 8414 or OpenID discovery)`, { cause: last });
}

// ---------------------------------------------------------------------------------------------------
// Tokens and errors

/** The stored client as the OAuth client takes it. */
function targetOf(client: OAuthClientState, outbound: OutboundOptions): OAuthTarget {
  return {
    server: { ...(client.issuer ? { issuer: client.issuer } : {}), tokenEndpoint: client.tokenEndpoint },
    clientId: client.clientId,
    ...(client.clientSecret ? { clientSecret: client.clientSecret } : {}),
    authMethod: client.tokenEndpointAuthMethod as ClientAuthMethod,
    outbound,
    ...(client.resource ? { resource: client.resource } : {}),
  };
}

function tokensOf(tokens: TokenSet, asked: string[]): OAuthTokens {
  return {
    accessToken: tokens.accessToken,
    ...(tokens.refreshToken ? { refreshToken: tokens.refreshToken } : {}),
    ...(tokens.expiresAt ? { expiresAt: tokens.expiresAt.getTime() } : {}),
    scopes: tokens.scope ?? asked,
  };
}

function causeOfType<T extends Error>(error: unknown, type: new (...args: never[]) => T): T | undefined {
  for (let e: unknown = error; e instanceof Error; e = e.cause) if (e instanceof type) return e;
  return undefined;
}

/**
 * The OAuth error as a tool server's: unreachable for the network or the guard, auth_required when the
 * code or refresh token is spent, wrong or revoked (the person must authorize again), else protocol.
 */
function toToolServerError(error: unknown, what: string): ToolServerError {
  if (error instanceof ToolServerError) return error;
  const failure = error instanceof OAuthError ? error : toOAuthError(error, what);
  const reason = failure.code === "network" ? "unreachable" : failure.code === "invalid_grant" || failure.cause instanceof oauth.AuthorizationResponseError ? "auth_required" : "protocol";
  return new ToolServerError(reason, failure.message, { cause: error });
}
