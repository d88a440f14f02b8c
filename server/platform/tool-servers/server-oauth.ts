// Per-end-user OAuth 2.0 (authorization code with PKCE) for tool servers: an MCP server's
// authorization server is discovered (protected-resource and authorization-server metadata, dynamic
// client registration when no client id is configured); a rest_api server names its endpoints in
// auth_config. INTERFACE STUB: the OAuth helper builds it. The caller stores what it returns, sealed.
import type { OutboundOptions } from "../outbound/guarded-fetch";
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
}

export interface OAuthTokens {
  accessToken: string;
  refreshToken?: string;
  /** Epoch ms. */
  expiresAt?: number;
  scopes: string[];
}

export async function startServerOAuth(_input: {
  server: OAuthServerInput;
  redirectUri: string;
  state: string;
  outbound: OutboundOptions;
}): Promise<{ authorizationUrl: string; client: OAuthClientState; codeVerifier: string }> {
  throw new ToolServerError("not_built", "OAuth for tool servers is not built yet");
}

export async function completeServerOAuth(_input: {
  client: OAuthClientState;
  code: string;
  codeVerifier: string;
  redirectUri: string;
  outbound: OutboundOptions;
}): Promise<OAuthTokens> {
  throw new ToolServerError("not_built", "OAuth for tool servers is not built yet");
}

export async function refreshServerOAuth(_input: {
  client: OAuthClientState;
  refreshToken: string;
  outbound: OutboundOptions;
}): Promise<OAuthTokens> {
  throw new ToolServerError("not_built", "OAuth for tool servers is not built yet");
}
