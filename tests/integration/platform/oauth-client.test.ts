// The platform's one OAuth client (server/platform/outbound/oauth-client.ts) against a real
// authorization server on loopback (oidc-provider: PKCE required, refresh tokens rotated, revocation
// on). The person's sign-in and consent are driven as a browser would (tests/helpers/oauth-server.ts).
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { closeOutboundAgents } from "@/server/platform/outbound/guarded-fetch";
import {
  accessTokenState,
  authorizationUrl,
  exchangeCode,
  newCodeVerifier,
  OAuthError,
  type OAuthTarget,
  REFRESH_MARGIN_MS,
  refreshTokens,
  revokeToken,
} from "@/server/platform/outbound/oauth-client";
import { startOAuthServer, type OAuthServer } from "../../helpers/oauth-server";

// Never fetched: authorize() stops when the authorization server redirects here.
const REDIRECT = "http://127.0.0.1:9/oauth/callback";

let server: OAuthServer;

beforeAll(async () => {
  server = await startOAuthServer();
  server.register([REDIRECT]);
});

afterEach(() => {
  server.setRefreshTokens("always");
});

afterAll(async () => {
  await server?.close();
  await closeOutboundAgents();
});

const target = (overrides: Partial<OAuthTarget> = {}): OAuthTarget => ({
  server: { issuer: server.issuer, authorizationEndpoint: server.authorizationUrl, tokenEndpoint: server.tokenUrl, revocationEndpoint: server.revocationUrl },
  clientId: server.client.clientId,
  clientSecret: server.client.clientSecret,
  authMethod: "client_secret_post",
  outbound: { allowLoopback: true, allowHttp: true },
  ...overrides,
});

async function failure(promise: Promise<unknown>): Promise<OAuthError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof OAuthError) return error;
    throw error;
  }
  throw new Error("expected an OAuthError");
}

/** The authorization URL → the person signs in and consents → the callback's parameters. */
async function authorize(scopes: string[], edit: (url: URL) => void = () => {}) {
  const state = `state-${Math.random().toString(36).slice(2)}`;
  const codeVerifier = newCodeVerifier();
  const url = new URL(await authorizationUrl({ authorizationEndpoint: server.authorizationUrl, clientId: server.client.clientId, redirectUri: REDIRECT, scopes, state, codeVerifier }));
  edit(url);
  const landed = await server.authorize(url.toString(), REDIRECT);
  return { state, codeVerifier, callback: landed.searchParams, url };
}

async function connect(scopes = ["repo"]) {
  const flow = await authorize(scopes);
  const tokens = await exchangeCode(target(), { callback: flow.callback, state: flow.state, redirectUri: REDIRECT, codeVerifier: flow.codeVerifier });
  return { flow, tokens };
}

describe("the authorization URL", () => {
  it("carries the client, the redirect URI, the scopes, the state and a PKCE S256 challenge of the verifier", async () => {
    const codeVerifier = newCodeVerifier();
    expect(codeVerifier).toMatch(/^[A-Za-z0-9_-]{43,}$/);
    const url = new URL(
      await authorizationUrl({
        authorizationEndpoint: `${server.authorizationUrl}?tenant=t1`,
        clientId: "c-1",
        redirectUri: REDIRECT,
        scopes: ["repo", "read:user"],
        scopeSeparator: ",",
        state: "s-1",
        codeVerifier,
        resource: "https://mcp.example.test/mcp",
        params: { access_type: "offline", client_id: "overridden" },
      }),
    );
    expect(`${url.origin}${url.pathname}`).toBe(server.authorizationUrl);
    const challenge = Buffer.from(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(codeVerifier))).toString("base64url");
    expect(Object.fromEntries(url.searchParams)).toEqual({
      tenant: "t1",
      access_type: "offline",
      response_type: "code",
      client_id: "c-1",
      redirect_uri: REDIRECT,
      scope: "repo,read:user",
      state: "s-1",
      code_challenge: challenge,
      code_challenge_method: "S256",
      resource: "https://mcp.example.test/mcp",
    });
  });

  it("asks for consent with offline_access, unless the caller set prompt=none or already consent", async () => {
    const url = async (params?: Record<string, string>) =>
      new URL(
        await authorizationUrl({
          authorizationEndpoint: server.authorizationUrl,
          clientId: "c",
          redirectUri: REDIRECT,
          scopes: ["openid", "offline_access"],
          state: "s",
          codeVerifier: newCodeVerifier(),
          ...(params ? { params } : {}),
        }),
      ).searchParams.get("prompt");
    expect(await url()).toBe("consent");
    expect(await url({ prompt: "login" })).toBe("login consent");
    expect(await url({ prompt: "consent" })).toBe("consent");
    expect(await url({ prompt: "none" })).toBe("none");
    const without = new URL(await authorizationUrl({ authorizationEndpoint: server.authorizationUrl, clientId: "c", redirectUri: REDIRECT, scopes: ["openid"], state: "s", codeVerifier: newCodeVerifier() }));
    expect(without.searchParams.has("prompt")).toBe(false);
  });

  it("gets a refresh token from an OpenID provider that issues one only for offline_access (prompt=consent makes it count)", async () => {
    server.setRefreshTokens("offline_access");
    const asked = await connect(["openid", "offline_access"]);
    expect(asked.flow.url.searchParams.get("prompt")).toBe("consent");
    expect(asked.tokens.refreshToken).toMatch(/^[\w.~-]{16,}$/);
    expect(asked.tokens.scope).toEqual(expect.arrayContaining(["openid", "offline_access"]));

    // The same request without prompt=consent: the provider drops offline_access and issues none.
    const flow = await authorize(["openid", "offline_access"], (url) => url.searchParams.delete("prompt"));
    const tokens = await exchangeCode(target(), { callback: flow.callback, state: flow.state, redirectUri: REDIRECT, codeVerifier: flow.codeVerifier });
    expect(tokens.refreshToken).toBeUndefined();
    expect(tokens.scope).toEqual(["openid"]);
  });
});

describe("the code exchange", () => {
  it("redeems the code with the verifier for a token set", async () => {
    const before = Date.now();
    const { tokens } = await connect(["repo", "read:user"]);
    expect(await server.validAccessToken(tokens.accessToken)).toMatchObject({ accountId: "octocat", scopes: ["repo", "read:user"] });
    expect(tokens).toMatchObject({ tokenType: "bearer", scope: ["repo", "read:user"] });
    expect(tokens.refreshToken).toMatch(/^[\w.~-]{16,}$/);
    expect(tokens.expiresAt!.getTime()).toBeGreaterThanOrEqual(before + 3600_000 - 1000);
    expect(tokens.expiresAt!.getTime()).toBeLessThanOrEqual(Date.now() + 3600_000);
  });

  it("refuses a wrong verifier, a replayed code and a wrong state with one error type", async () => {
    const flow = await authorize(["repo"]);
    const exchange = (codeVerifier: string, state = flow.state) => exchangeCode(target(), { callback: flow.callback, state, redirectUri: REDIRECT, codeVerifier });
    const wrongState = await failure(exchange(flow.codeVerifier, "another-state"));
    expect(wrongState.code).toBe("invalid_response");
    expect(wrongState.message).toMatch(/^code exchange: /);
    const wrongVerifier = await failure(exchange("x".repeat(43)));
    expect(wrongVerifier).toMatchObject({ code: "invalid_grant" });
    expect(wrongVerifier.message).toMatch(/^code exchange: the authorization server answered 400 invalid_grant \(.+\)$/);
    expect(wrongVerifier.description).toEqual(expect.any(String));
    expect(await server.validAccessToken((await exchange(flow.codeVerifier)).accessToken)).not.toBeNull();
    expect((await failure(exchange(flow.codeVerifier))).code).toBe("invalid_grant");
  });

  it("refuses a wrong client secret with the server's invalid_client", async () => {
    const flow = await authorize(["repo"]);
    const error = await failure(exchangeCode(target({ clientSecret: "not-the-secret-0123456789" }), { callback: flow.callback, state: flow.state, redirectUri: REDIRECT, codeVerifier: flow.codeVerifier }));
    expect(error.code).toBe("invalid_client");
  });

  it("sends nothing where the outbound rules refuse: a loopback token endpoint without the loopback setting is a network error", async () => {
    const grants = server.grants.authorization_code ?? 0;
    const flow = await authorize(["repo"]);
    const error = await failure(exchangeCode(target({ outbound: { allowHttp: true } }), { callback: flow.callback, state: flow.state, redirectUri: REDIRECT, codeVerifier: flow.codeVerifier }));
    expect(error).toMatchObject({ code: "network", message: "code exchange: 127.0.0.1 is a loopback address" });
    expect(server.grants.authorization_code ?? 0).toBe(grants);
  });
});

describe("refresh", () => {
  it("gives new tokens; the rotated-out refresh token is refused with invalid_grant", async () => {
    const { tokens } = await connect();
    const refreshed = await refreshTokens(target(), tokens.refreshToken!);
    expect(refreshed.accessToken).not.toBe(tokens.accessToken);
    expect(await server.validAccessToken(refreshed.accessToken)).toMatchObject({ accountId: "octocat", scopes: ["repo"] });
    expect(refreshed.refreshToken).toMatch(/^[\w.~-]{16,}$/);
    expect(refreshed.refreshToken).not.toBe(tokens.refreshToken);
    expect(refreshed.expiresAt!.getTime()).toBeGreaterThan(Date.now());

    const spent = await failure(refreshTokens(target(), tokens.refreshToken!));
    expect(spent.code).toBe("invalid_grant");
    expect(spent.message).toMatch(/^token refresh: the authorization server answered 400 invalid_grant/);
  });

  it("a grant the server ended is refused with invalid_grant", async () => {
    const { tokens } = await connect();
    await server.revokeGrantOf(tokens.refreshToken!);
    expect((await failure(refreshTokens(target(), tokens.refreshToken!))).code).toBe("invalid_grant");
  });
});

describe("revocation", () => {
  it("revoking the refresh token ends it; revoking an access token ends that token", async () => {
    const { tokens } = await connect();
    expect(await revokeToken(target(), tokens.refreshToken!, "refresh_token")).toBe(true);
    expect((await failure(refreshTokens(target(), tokens.refreshToken!))).code).toBe("invalid_grant");

    const other = await connect();
    expect(await server.validAccessToken(other.tokens.accessToken)).not.toBeNull();
    expect(await revokeToken(target(), other.tokens.accessToken, "access_token")).toBe(true);
    expect(await server.validAccessToken(other.tokens.accessToken)).toBeNull();
  });

  it("without a revocation endpoint sends nothing and says so", async () => {
    const { tokens } = await connect();
    const { revocationEndpoint: _none, ...endpoints } = target().server;
    expect(await revokeToken(target({ server: endpoints }), tokens.refreshToken!, "refresh_token")).toBe(false);
    expect(await refreshTokens(target(), tokens.refreshToken!)).toMatchObject({ tokenType: "bearer" });
  });
});

describe("accessTokenState", () => {
  const now = 1_000_000_000_000;
  it("without a refresh token, a token is used until it actually expires", () => {
    expect(accessTokenState(new Date(now + 1), false, now)).toBe("valid");
    expect(accessTokenState(now + 45_000, false, now)).toBe("valid");
    expect(accessTokenState(now, false, now)).toBe("expired");
    expect(accessTokenState(now - 1, false, now)).toBe("expired");
  });

  it("with one, it is refreshed within the margin (and after expiry); a token without an expiry is always valid", () => {
    expect(accessTokenState(now + REFRESH_MARGIN_MS + 1, true, now)).toBe("valid");
    expect(accessTokenState(now + REFRESH_MARGIN_MS, true, now)).toBe("refresh");
    expect(accessTokenState(now - 1, true, now)).toBe("refresh");
    expect(accessTokenState(null, false, now)).toBe("valid");
    expect(accessTokenState(undefined, true, now)).toBe("valid");
  });
});
