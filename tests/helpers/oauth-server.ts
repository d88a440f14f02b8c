// A real OAuth 2.0 authorization server on loopback, for tests of app connections: oidc-provider with
// PKCE required, refresh tokens for every client allowed them, short access tokens when asked, and an
// interaction that signs the person in and consents at once (no forms). Tests drive the authorization
// URL with authorize() as a browser would (cookies, redirects), and check access tokens with
// validAccessToken() (what a fake API asks before it answers). For MCP servers it can also take dynamic
// client registrations (RFC 7591) and bind tokens to a resource indicator (RFC 8707).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Provider, { type ClientMetadata, type KoaContextWithOIDC } from "oidc-provider";

export interface OAuthClient {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
}

export interface OAuthServer {
  /** http://127.0.0.1:<port> */
  issuer: string;
  authorizationUrl: string;
  tokenUrl: string;
  revocationUrl: string;
  /** The client the tests' platform uses; register() replaces its redirect URIs. */
  client: OAuthClient;
  /** (Re)creates the provider with the client's redirect URIs (known once the platform listens). */
  register(redirectUris: string[]): void;
  /** Who signs in at the next authorization (default "octocat"). */
  signInAs(accountId: string): void;
  /** Seconds new access tokens live (default 3600). */
  setAccessTokenTtl(seconds: number): void;
  /**
   * When refresh tokens are issued: "always" (default, to every client allowed them),
   * "offline_access" (OpenID Connect's rule and oidc-provider's default: only when offline_access was
   * granted, which takes prompt=consent) or "never".
   */
  setRefreshTokens(policy: RefreshTokenPolicy): void;
  /** Token requests that succeeded, by grant type. */
  grants: Record<string, number>;
  /** Token requests that failed, by grant type and error. */
  grantErrors: { grantType: string; error: string }[];
  /** Clients registered dynamically (RFC 7591), in order. */
  registrations: { clientId: string; tokenEndpointAuthMethod: string; redirectUris: string[] }[];
  /**
   * The account an access token was issued to (and the resource it is bound to, with resource
   * indicators), or null when unknown, expired or revoked.
   */
  validAccessToken(token: string): Promise<{ accountId: string; scopes: string[]; audience?: string } | null>;
  /** Ends the grant a refresh token belongs to (the next refresh answers invalid_grant). */
  revokeGrantOf(refreshToken: string): Promise<void>;
  /** Follows an authorization URL through sign-in and consent until a redirect to `stopAt` (a URL prefix). */
  authorize(authorizationUrl: string, stopAt: string): Promise<URL>;
  close(): Promise<void>;
}

export type RefreshTokenPolicy = "always" | "offline_access" | "never";

export const OAUTH_SCOPES = ["openid", "offline_access", "repo", "read:user", "channels:read", "chat:write", "users:read"];

export interface OAuthServerOptions {
  clientId?: string;
  clientSecret?: string;
  /** Open dynamic client registration at /reg (no initial access token), as MCP clients expect. */
  dynamicRegistration?: boolean;
  /** RFC 8707: every resource is accepted and its tokens (opaque) carry these scopes and the resource as audience. */
  resourceIndicators?: { scopes: string[] };
}

export async function startOAuthServer(options: OAuthServerOptions = {}): Promise<OAuthServer> {
  let provider: Provider | undefined;
  let accountId = "octocat";
  let accessTokenTtl = 3600;
  let refreshTokens: RefreshTokenPolicy = "always";
  const grants: Record<string, number> = {};
  const grantErrors: { grantType: string; error: string }[] = [];
  const registrations: OAuthServer["registrations"] = [];

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (!provider) {
      res.writeHead(503).end("no client registered yet");
      return;
    }
    if (req.url?.startsWith("/interaction/")) return interact(provider, req, res);
    provider.callback()(req, res);
  };

  async function interact(p: Provider, req: IncomingMessage, res: ServerResponse) {
    const details = await p.interactionDetails(req, res);
    if (details.prompt.name === "login") {
      await p.interactionFinished(req, res, { login: { accountId } }, { mergeWithLastSubmission: false });
      return;
    }
    const grant = details.grantId
      ? (await p.Grant.find(details.grantId))!
      : new p.Grant({ accountId: details.session!.accountId, clientId: details.params.client_id as string });
    const missing = details.prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[]; missingResourceScopes?: Record<string, string[]> };
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(" "));
    if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
    for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) grant.addResourceScope(indicator, scopes.join(" "));
    const grantId = await grant.save();
    await p.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client: OAuthClient = {
    clientId: options.clientId ?? "inlay-test-client",
    clientSecret: options.clientSecret ?? "inlay-test-client-secret-0123456789",
    redirectUris: [],
  };

  function register(redirectUris: string[]) {
    client.redirectUris = redirectUris;
    const metadata: ClientMetadata = {
      client_id: client.clientId,
      client_secret: client.clientSecret,
      redirect_uris: redirectUris,
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "client_secret_post",
    };
    const next = new Provider(issuer, {
      clients: [metadata],
      scopes: OAUTH_SCOPES,
      pkce: { required: () => true },
      features: {
        devInteractions: { enabled: false },
        revocation: { enabled: true, allowedPolicy: () => true },
        introspection: { enabled: true },
        ...(options.dynamicRegistration ? { registration: { enabled: true } } : {}),
        ...(options.resourceIndicators
          ? {
              resourceIndicators: {
                enabled: true,
                // An authorization that named one resource gets its token for it without naming it again.
                defaultResource: (_ctx: unknown, _client: unknown, oneOf?: string[]) => (oneOf?.length === 1 ? oneOf[0] : undefined),
                useGrantedResource: () => true,
                getResourceServerInfo: (_ctx: unknown, resource: string) => ({
                  scope: options.resourceIndicators!.scopes.join(" "),
                  audience: resource,
                  accessTokenFormat: "opaque",
                }),
              },
            }
          : {}),
      },
      issueRefreshToken: async (_ctx: unknown, c: { grantTypeAllowed(type: string): boolean }, source: { scopes: Set<string> }) =>
        c.grantTypeAllowed("refresh_token") && (refreshTokens === "always" || (refreshTokens === "offline_access" && source.scopes.has("offline_access"))),
      // Rotation on every refresh: the strictest case for the platform (it must keep the new one).
      rotateRefreshToken: () => true,
      ttl: {
        AccessToken: () => accessTokenTtl,
        AuthorizationCode: 60,
        RefreshToken: 86_400,
        Grant: 86_400,
        Interaction: 600,
        Session: 86_400,
        IdToken: 3600,
      },
      findAccount: async (_ctx: unknown, id: string) => ({ accountId: id, claims: async () => ({ sub: id, email: `${id}@example.test` }) }),
      interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
      cookies: { keys: ["inlay-test-cookie-key"] },
    });
    const grantTypeOf = (ctx: KoaContextWithOIDC) => String((ctx.oidc?.params?.grant_type as string | undefined) ?? "unknown");
    next.on("grant.success", (ctx: KoaContextWithOIDC) => {
      const type = grantTypeOf(ctx);
      grants[type] = (grants[type] ?? 0) + 1;
    });
    next.on("grant.error", (ctx: KoaContextWithOIDC, error: { error?: string }) => {
      grantErrors.push({ grantType: grantTypeOf(ctx), error: error.error ?? "error" });
    });
    next.on("registration_create.success", (_ctx: unknown, registered: { clientId: string; tokenEndpointAuthMethod: string; redirectUris: string[] }) => {
      registrations.push({ clientId: registered.clientId, tokenEndpointAuthMethod: registered.tokenEndpointAuthMethod, redirectUris: [...registered.redirectUris] });
    });
    provider = next;
  }

  async function authorize(authorizationUrl: string, stopAt: string): Promise<URL> {
    const jar = new Map<string, string>();
    let current = authorizationUrl;
    for (let hop = 0; hop < 20; hop++) {
      if (current.startsWith(stopAt)) return new URL(current);
      const response = await fetch(current, {
        redirect: "manual",
        headers: { cookie: [...jar].map(([name, value]) => `${name}=${value}`).join("; ") },
      });
      for (const line of response.headers.getSetCookie()) {
        const [pair] = line.split(";");
        const at = pair!.indexOf("=");
        const name = pair!.slice(0, at).trim();
        const value = pair!.slice(at + 1).trim();
        if (/expires=Thu, 01 Jan 1970/i.test(line) || value === "") jar.delete(name);
        else jar.set(name, value);
      }
      const location = response.headers.get("location");
      if (response.status >= 300 && response.status < 400 && location) {
        await response.body?.cancel();
        current = new URL(location, current).toString();
        continue;
      }
      throw new Error(`authorization stopped at ${current}: ${response.status} ${(await response.text()).slice(0, 500)}`);
    }
    throw new Error("authorization: too many redirects");
  }

  return {
    issuer,
    authorizationUrl: `${issuer}/auth`,
    tokenUrl: `${issuer}/token`,
    revocationUrl: `${issuer}/token/revocation`,
    client,
    register,
    signInAs: (id) => {
      accountId = id;
    },
    setAccessTokenTtl: (seconds) => {
      accessTokenTtl = seconds;
    },
    setRefreshTokens: (policy) => {
      refreshTokens = policy;
    },
    grants,
    grantErrors,
    registrations,
    async validAccessToken(token) {
      if (!provider) return null;
      const found = await provider.AccessToken.find(token);
      if (!found || found.isExpired) return null;
      const audience = Array.isArray(found.aud) ? found.aud[0] : found.aud;
      return { accountId: found.accountId!, scopes: [...(found.scopes ?? [])], ...(audience ? { audience } : {}) };
    },
    async revokeGrantOf(refreshToken) {
      const found = await provider?.RefreshToken.find(refreshToken);
      if (!found) throw new Error("revokeGrantOf: unknown refresh token");
      const grant = found.grantId ? await provider!.Grant.find(found.grantId) : undefined;
      await grant?.destroy();
      await found.destroy();
    },
    authorize,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
