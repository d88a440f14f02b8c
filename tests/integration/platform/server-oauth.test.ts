// OAuth for tool servers (server/platform/tool-servers/server-oauth.ts) against a strict authorization
// server on loopback (oidc-provider: PKCE required, refresh tokens rotated, dynamic registration and
// resource indicators on) and the loopback MCP server protecting itself with that server's tokens. The
// person's sign-in and consent are driven as a browser would (tests/helpers/oauth-server.ts authorize()).
import type { LookupFunction } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { closeOutboundAgents, type OutboundOptions } from "@/server/platform/outbound/guarded-fetch";
import { callMcpTool, closeMcpClients, listMcpTools } from "@/server/platform/tool-servers/mcp-client";
import { completeServerOAuth, refreshServerOAuth, startServerOAuth, type OAuthServerInput } from "@/server/platform/tool-servers/server-oauth";
import { ToolServerError } from "@/server/platform/tool-servers/types";
import { MCP_TOOL_NAMES, startMcpServer, type McpTestServer } from "../../helpers/mcp-server";
import { startOAuthServer, type OAuthServer } from "../../helpers/oauth-server";

// Never fetched: authorize() stops when the authorization server redirects here.
const REDIRECT = "http://127.0.0.1:9/tool-servers/oauth/callback";
const MCP_SCOPES = ["mcp:tools"];

const fakeLookup: LookupFunction = (hostname, options, callback) => {
  const address = hostname === "internal.example.test" ? "10.0.0.5" : undefined;
  if (!address) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" }), "");
  if (options.all) return callback(null, [{ address, family: 4 }]);
  callback(null, address, 4);
};
const outbound: OutboundOptions = { allowLoopback: true, allowHttp: true, lookup: fakeLookup };

let oauth: OAuthServer;
let mcp: McpTestServer;

const restApi = (overrides: Partial<OAuthServerInput["authConfig"]> = {}): OAuthServerInput => ({
  kind: "rest_api",
  url: "https://api.example.test/v1",
  authConfig: { authorization_url: oauth.authorizationUrl, token_url: oauth.tokenUrl, client_id: oauth.client.clientId, scopes: ["repo"], ...overrides },
  clientSecret: oauth.client.clientSecret,
});
const mcpServer = (overrides: Partial<OAuthServerInput> = {}): OAuthServerInput => ({ kind: "mcp_http", url: mcp.url, authConfig: {}, ...overrides });

async function failure(promise: Promise<unknown>): Promise<ToolServerError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ToolServerError) return error;
    throw error;
  }
  throw new Error("expected a ToolServerError");
}

/** start → the person signs in and consents → the code at the redirect URI. */
async function authorizeThrough(server: OAuthServerInput, state = `state-${Math.random().toString(36).slice(2)}`) {
  const started = await startServerOAuth({ server, redirectUri: REDIRECT, state, outbound });
  const landed = await oauth.authorize(started.authorizationUrl, REDIRECT);
  expect(landed.searchParams.get("state")).toBe(state);
  const code = landed.searchParams.get("code");
  expect(code).toMatch(/^[\w.~-]{16,}$/);
  return { ...started, code: code! };
}

beforeAll(async () => {
  oauth = await startOAuthServer({ dynamicRegistration: true, resourceIndicators: { scopes: MCP_SCOPES } });
  oauth.register([REDIRECT]);
  mcp = await startMcpServer();
  mcp.protect({
    authorizationServer: oauth.issuer,
    scopes: MCP_SCOPES,
    // As a resource server should: the token must be live and issued for this resource.
    verify: async (token) => (await oauth.validAccessToken(token))?.audience === mcp.resource,
  });
});

afterEach(async () => {
  await closeMcpClients();
});

afterAll(async () => {
  await closeMcpClients();
  await mcp?.close();
  await oauth?.close();
  await closeOutboundAgents();
});

describe("rest_api: endpoints from auth_config", () => {
  it("start gives an authorization URL with PKCE S256, the client id, scopes and state", async () => {
    const started = await startServerOAuth({ server: restApi(), redirectUri: REDIRECT, state: "s-1", outbound });
    const url = new URL(started.authorizationUrl);
    expect(`${url.origin}${url.pathname}`).toBe(oauth.authorizationUrl);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      response_type: "code",
      client_id: oauth.client.clientId,
      redirect_uri: REDIRECT,
      scope: "repo",
      state: "s-1",
      code_challenge_method: "S256",
    });
    expect(url.searchParams.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.has("resource")).toBe(false);
    expect(started.codeVerifier.length).toBeGreaterThanOrEqual(43);
    expect(started.client).toEqual({
      tokenEndpoint: oauth.tokenUrl,
      clientId: oauth.client.clientId,
      clientSecret: oauth.client.clientSecret,
      tokenEndpointAuthMethod: "client_secret_post",
      scopes: ["repo"],
    });
  });

  it("complete exchanges the code for tokens, and refresh gives new ones (the old refresh token is spent)", async () => {
    const flow = await authorizeThrough(restApi());
    const tokens = await completeServerOAuth({ client: flow.client, code: flow.code, codeVerifier: flow.codeVerifier, redirectUri: REDIRECT, outbound });
    expect(await oauth.validAccessToken(tokens.accessToken)).toMatchObject({ accountId: "octocat", scopes: ["repo"] });
    expect(tokens.refreshToken).toMatch(/^[\w.~-]{16,}$/);
    expect(tokens.expiresAt).toBeGreaterThan(Date.now());
    expect(tokens.scopes).toEqual(["repo"]);

    const refreshed = await refreshServerOAuth({ client: flow.client, refreshToken: tokens.refreshToken!, outbound });
    expect(refreshed.accessToken).not.toBe(tokens.accessToken);
    expect(await oauth.validAccessToken(refreshed.accessToken)).not.toBeNull();
    expect(refreshed.refreshToken).toMatch(/^[\w.~-]{16,}$/);
    expect(refreshed.refreshToken).not.toBe(tokens.refreshToken);

    const spent = await failure(refreshServerOAuth({ client: flow.client, refreshToken: tokens.refreshToken!, outbound }));
    expect(spent.reason).toBe("auth_required");
    expect(spent.message).toMatch(/^token refresh: the authorization server answered 400 invalid_grant/);
  });

  it("a bad code, a wrong code verifier and a replayed code are refused with the server's error", async () => {
    const flow = await authorizeThrough(restApi());
    const bad = await failure(completeServerOAuth({ client: flow.client, code: "not-a-code", codeVerifier: flow.codeVerifier, redirectUri: REDIRECT, outbound }));
    expect(bad.reason).toBe("auth_required");
    expect(bad.message).toMatch(/^code exchange: the authorization server answered 400 invalid_grant/);

    const wrongVerifier = await failure(
      completeServerOAuth({ client: flow.client, code: flow.code, codeVerifier: "x".repeat(43), redirectUri: REDIRECT, outbound }),
    );
    expect(wrongVerifier.message).toMatch(/^code exchange: the authorization server answered 400 invalid_grant/);
    const exchange = () => completeServerOAuth({ client: flow.client, code: flow.code, codeVerifier: flow.codeVerifier, redirectUri: REDIRECT, outbound });
    // The right verifier still works once: the access token it gives is one the server honours.
    expect(await oauth.validAccessToken((await exchange()).accessToken)).not.toBeNull();
    const replay = await failure(exchange());
    expect(replay.message).toMatch(/^code exchange: the authorization server answered 400 invalid_grant/);
  });

  it("names what auth_config lacks", async () => {
    const error = await failure(startServerOAuth({ server: restApi({ token_url: undefined }), redirectUri: REDIRECT, state: "s", outbound }));
    expect(error.message).toBe("auth_config.token_url is required for OAuth on a rest_api server");
  });

  it("sends nothing to a token endpoint the guard refuses", async () => {
    const flow = await startServerOAuth({ server: restApi(), redirectUri: REDIRECT, state: "s", outbound });
    const error = await failure(
      completeServerOAuth({ client: { ...flow.client, tokenEndpoint: "http://internal.example.test/token" }, code: "c", codeVerifier: flow.codeVerifier, redirectUri: REDIRECT, outbound }),
    );
    expect(error).toMatchObject({ reason: "unreachable", message: "code exchange: internal.example.test resolves to 10.0.0.5, a private address" });
    const strict = await failure(startServerOAuth({ server: mcpServer(), redirectUri: REDIRECT, state: "s", outbound: { allowHttp: true } }));
    expect(strict).toMatchObject({ reason: "unreachable", message: "authorization: 127.0.0.1 is a loopback address" });
  });
});

describe("MCP servers: discovered", () => {
  it("without a token the server answers auth_required; after discovery, registration and consent its tools are listed", async () => {
    expect((await failure(listMcpTools({ url: mcp.url, kind: "mcp_http", headers: {}, outbound }))).reason).toBe("auth_required");

    const registrationsBefore = oauth.registrations.length;
    const flow = await authorizeThrough(mcpServer());
    // Discovered from the 401's resource metadata; a public client registered for this redirect URI.
    expect(oauth.registrations.length).toBe(registrationsBefore + 1);
    const registered = oauth.registrations.at(-1)!;
    expect(registered).toEqual({ clientId: flow.client.clientId, tokenEndpointAuthMethod: "none", redirectUris: [REDIRECT] });
    expect(flow.client).toEqual({
      tokenEndpoint: oauth.tokenUrl,
      clientId: registered.clientId,
      tokenEndpointAuthMethod: "none",
      scopes: MCP_SCOPES,
      resource: mcp.resource,
      issuer: oauth.issuer,
    });
    const url = new URL(flow.authorizationUrl);
    expect(url.searchParams.get("resource")).toBe(mcp.resource);
    expect(url.searchParams.get("scope")).toBe("mcp:tools");

    const tokens = await completeServerOAuth({ client: flow.client, code: flow.code, codeVerifier: flow.codeVerifier, redirectUri: REDIRECT, outbound });
    expect(await oauth.validAccessToken(tokens.accessToken)).toMatchObject({ audience: mcp.resource, scopes: MCP_SCOPES });

    const tools = await listMcpTools({ url: mcp.url, kind: "mcp_http", headers: {}, accessToken: tokens.accessToken, outbound });
    expect(tools.map((tool) => tool.name).sort()).toEqual([...MCP_TOOL_NAMES].sort());
    expect(await callMcpTool({ url: mcp.sseUrl, kind: "mcp_sse", headers: {}, accessToken: tokens.accessToken, outbound }, "add", { a: 1, b: 2 })).toEqual({
      ok: true,
      result: { sum: 3 },
    });

    // The refreshed token is bound to the resource too, and works.
    const refreshed = await refreshServerOAuth({ client: flow.client, refreshToken: tokens.refreshToken!, outbound });
    expect(await oauth.validAccessToken(refreshed.accessToken)).toMatchObject({ audience: mcp.resource });
    expect(await callMcpTool({ url: mcp.url, kind: "mcp_http", headers: {}, accessToken: refreshed.accessToken, outbound }, "echo", { text: "again" })).toEqual({
      ok: true,
      result: "again",
    });
  });

  it("a configured client id and secret are used instead of registering", async () => {
    const registrationsBefore = oauth.registrations.length;
    const server = mcpServer({ kind: "mcp_sse", url: mcp.sseUrl, authConfig: { client_id: oauth.client.clientId, scopes: ["mcp:tools"] }, clientSecret: oauth.client.clientSecret });
    const flow = await authorizeThrough(server);
    expect(oauth.registrations.length).toBe(registrationsBefore);
    expect(flow.client).toMatchObject({ clientId: oauth.client.clientId, tokenEndpointAuthMethod: "client_secret_post", resource: mcp.resource });
    const tokens = await completeServerOAuth({ client: flow.client, code: flow.code, codeVerifier: flow.codeVerifier, redirectUri: REDIRECT, outbound });
    expect((await listMcpTools({ url: mcp.sseUrl, kind: "mcp_sse", headers: {}, accessToken: tokens.accessToken, outbound })).length).toBe(MCP_TOOL_NAMES.length);
  });

  it("asking for offline_access sends prompt=consent, so a provider that issues refresh tokens only for it issues one", async () => {
    oauth.setRefreshTokens("offline_access");
    try {
      const flow = await authorizeThrough(mcpServer({ authConfig: { scopes: ["mcp:tools", "offline_access"] } }));
      const url = new URL(flow.authorizationUrl);
      expect(url.searchParams.get("scope")).toBe("mcp:tools offline_access");
      expect(url.searchParams.get("prompt")).toBe("consent");
      const tokens = await completeServerOAuth({ client: flow.client, code: flow.code, codeVerifier: flow.codeVerifier, redirectUri: REDIRECT, outbound });
      expect(tokens.refreshToken).toMatch(/^[\w.~-]{16,}$/);
      const refreshed = await refreshServerOAuth({ client: flow.client, refreshToken: tokens.refreshToken!, outbound });
      expect(await oauth.validAccessToken(refreshed.accessToken)).toMatchObject({ audience: mcp.resource });
    } finally {
      oauth.setRefreshTokens("always");
    }
  });

  it("a server that publishes no OAuth metadata is a clear protocol error", async () => {
    const open = await startMcpServer();
    try {
      const error = await failure(startServerOAuth({ server: mcpServer({ url: open.url }), redirectUri: REDIRECT, state: "s", outbound }));
      expect(error.reason).toBe("protocol");
      expect(error.message).toBe(`no OAuth authorization server metadata at ${open.baseUrl}/ (RFC 8414 or OpenID discovery)`);
      // The probe carried no body: the open server started no session for it.
      expect(open.sessionCount()).toBe(0);
    } finally {
      await open.close();
    }
  });
});
