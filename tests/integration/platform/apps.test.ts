import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { logger } from "@/lib/logger";
import { authorizationFor, connectionsForRun, openCredentials, refreshAfterUnauthorized } from "@/server/platform/services/apps/app-credentials";
import { findUsableConnections } from "@/server/platform/repositories/app-connections";
import { startChatFake, startCodehostFake, type ChatFake, type CodehostFake } from "../../helpers/app-fakes";
import { startOAuthServer, type OAuthServer } from "../../helpers/oauth-server";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";

const FRONTEND = "https://app.example.test";
const REDIRECT = `${FRONTEND}/connected`;

let oauth: OAuthServer;
let codehost: CodehostFake;
let chat: ChatFake;
let platform: PlatformHarness;
let owner: Account;
let stranger: Account;

// Every log line the platform writes during these tests, to look for tokens in.
const logged: string[] = [];
const serialise = (value: unknown) =>
  JSON.stringify(value, (_key, inner: unknown) =>
    inner instanceof Error ? { name: inner.name, message: inner.message, stack: inner.stack, cause: inner.cause } : inner,
  );

beforeAll(async () => {
  for (const level of ["trace", "debug", "info", "warn", "error", "fatal"] as const) {
    vi.spyOn(logger, level).mockImplementation(((...args: unknown[]) => {
      logged.push(serialise(args));
    }) as never);
  }
  oauth = await startOAuthServer();
  codehost = await startCodehostFake(oauth);
  chat = await startChatFake(oauth);
  const sameServer = {
    clientId: oauth.client.clientId,
    clientSecret: oauth.client.clientSecret,
    authorizationUrl: oauth.authorizationUrl,
    tokenUrl: oauth.tokenUrl,
    revocationUrl: oauth.revocationUrl,
    issuer: oauth.issuer,
  };
  platform = await startPlatform({
    apps: {
      overrides: {
        codehost: { ...sameServer, apiBaseUrl: codehost.baseUrl },
        // One scope: the chat app joins scopes with commas, as Slack does, which oidc-provider would not split.
        chat: { ...sameServer, apiBaseUrl: chat.baseUrl, scopes: ["channels:read"] },
      },
      redirectOrigins: [FRONTEND],
      content: {
        apps: [
          {
            slug: "crm",
            name: "CRM",
            auth: "api_key",
            api_key: { header: "X-Api-Key" },
            api_base_url: "https://crm.example.test/v1",
            tools: [{ name: "list_contacts", description: "List contacts", method: "GET", path: "/contacts" }],
          },
          {
            // A native client: the authorization server sends the code to the client's own redirect.
            slug: "native",
            name: "Native",
            auth: "oauth2",
            oauth: { ...nativeOAuth(), native_redirect: true, scopes: ["read:user"] },
            api_base_url: codehost.baseUrl,
            identity: { path: "/user", label_field: "login" },
          },
        ],
      },
    },
  });
  oauth.register([`${platform.baseUrl}/apps/oauth/callback`, REDIRECT]);
  owner = await platform.signup();
  stranger = await platform.signup();
});

const nativeOAuth = () => ({
  authorization_url: oauth.authorizationUrl,
  token_url: oauth.tokenUrl,
  client_id: oauth.client.clientId,
  client_secret: oauth.client.clientSecret,
});

afterAll(async () => {
  await platform?.close();
  await codehost?.close();
  await chat?.close();
  await oauth?.close();
  vi.restoreAllMocks();
});

beforeEach(() => {
  oauth.signInAs("octocat");
  oauth.setAccessTokenTtl(3600);
});

/** connect → the provider's sign-in and consent → the platform's callback → the redirect to REDIRECT. */
async function authorize(key: string, userId: string | undefined, body: Record<string, unknown> = {}) {
  const started = await platform.call("/apps/codehost/connect", { key, query: userId ? { user_id: userId } : {}, body: { redirect_uri: REDIRECT, ...body } });
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  const landed = await oauth.authorize(started.body.authorization_url, REDIRECT);
  return { started: started.body as { authorization_url: string; connection_id: string }, landed };
}

async function connect(key: string, userId: string, body: Record<string, unknown> = {}) {
  const { started, landed } = await authorize(key, userId);
  expect(landed.searchParams.get("status")).toBe("authorized");
  const completed = await platform.call("/apps/codehost/connect/complete", { key, body: { connection_id: started.connection_id, user_id: userId, ...body } });
  expect(completed.status, JSON.stringify(completed.body)).toBe(200);
  return started.connection_id;
}

const row = (id: string) => platform.database.prisma.platformAppConnection.findUniqueOrThrow({ where: { id } });
const tokensOf = async (id: string) => {
  const { credentials } = openCredentials(platform.config, (await row(id)).credentialsSealed!);
  if (credentials.kind !== "oauth2") throw new Error("not oauth");
  return credentials;
};
const ctx = () => ({ prisma: platform.database.prisma, config: platform.config });

describe("GET /apps", () => {
  it("lists the catalogue with what is configured", async () => {
    const { status, body } = await platform.call("/apps", { key: owner.key });
    expect(status).toBe(200);
    const bySlug = Object.fromEntries(body.data.map((app: { slug: string }) => [app.slug, app]));
    expect(bySlug.codehost).toMatchObject({ auth: "oauth2", configured: true, connected: false, connection_status: null, source: "builtin" });
    expect(bySlug.mail).toMatchObject({ configured: false });
    expect(bySlug.crm).toMatchObject({ auth: "api_key", configured: true, source: "vendor", tools_count: 1 });
  });

  it("answers tools and triggers of an app, and 404 for an unknown app", async () => {
    const tools = await platform.call("/apps/codehost/tools", { key: owner.key });
    expect(tools.body.data.map((tool: { name: string }) => tool.name)).toEqual(["list_repos", "get_issue", "list_issues", "create_issue", "create_comment"]);
    const triggers = await platform.call("/apps/codehost/triggers", { key: owner.key });
    expect(triggers.body.data[0]).toMatchObject({ name: "issue_opened" });
    const unknown = await platform.call("/apps/nope/tools", { key: owner.key });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ type: "not_found", code: 404, request_id: expect.any(String) });
  });

  it("needs an API key", async () => {
    const { status, body } = await platform.call("/apps", {});
    expect(status).toBe(401);
    expect(body.error.type).toBe("authentication_error");
  });
});

describe("OAuth connect", () => {
  it("connects through the authorization server and the platform's callback", async () => {
    const { started, landed } = await authorize(owner.key, "alice");
    expect(started.authorization_url).toContain("code_challenge_method=S256");
    expect(landed.searchParams.get("connection_id")).toBe(started.connection_id);
    expect(landed.searchParams.get("app")).toBe("codehost");
    expect(landed.searchParams.has("connector_claim")).toBe(false);
    // Not active (nor listed) until completed.
    const before = await platform.call("/apps", { key: owner.key, query: { user_id: "alice" } });
    expect(before.body.data.find((app: { slug: string }) => app.slug === "codehost").connected).toBe(false);

    const completed = await platform.call("/apps/codehost/connect/complete", { key: owner.key, body: { connection_id: started.connection_id, user_id: "alice" } });
    expect(completed.status).toBe(200);
    expect(completed.body).toEqual({ status: "active", app: "codehost", connection_id: started.connection_id });

    const apps = await platform.call("/apps", { key: owner.key, query: { user_id: "alice" } });
    expect(apps.body.data.find((app: { slug: string }) => app.slug === "codehost")).toMatchObject({ connected: true, connection_status: "active", connections_count: 1 });
    const list = await platform.call("/apps/connections", { key: owner.key, query: { user_id: "alice" } });
    expect(list.body.data).toEqual([
      expect.objectContaining({ connection_id: started.connection_id, status: "active", account_label: "octocat", app: "codehost", user_id: "alice", agent_ids: [] }),
    ]);
    expect(list.body.data[0].scopes).toEqual(expect.arrayContaining(["repo", "read:user"]));
    // The account level sees none of it.
    const accountLevel = await platform.call("/apps/codehost/connections", { key: owner.key });
    expect(accountLevel.body.data).toEqual([]);

    // A tool call's credentials work at the app.
    const authorization = await authorizationFor(ctx(), started.connection_id);
    expect(authorization).toMatchObject({ ok: true, baseUrl: codehost.baseUrl });
    const response = await fetch(`${codehost.baseUrl}/user/repos`, { headers: (authorization as { headers: Record<string, string> }).headers });
    expect(response.status).toBe(200);
  });

  it("refuses a replayed state", async () => {
    const started = await platform.call("/apps/codehost/connect", { key: owner.key, query: { user_id: "bob" }, body: { redirect_uri: REDIRECT } });
    const state = new URL(started.body.authorization_url).searchParams.get("state")!;
    const landed = await oauth.authorize(started.body.authorization_url, REDIRECT);
    expect(landed.searchParams.get("status")).toBe("authorized");
    const replay = await platform.request(`/apps/oauth/callback?code=whatever&state=${encodeURIComponent(state)}`, { redirect: "manual" });
    expect(replay.status).toBe(400);
    const body = (await replay.json()) as { error: { type: string; error_code: string } };
    expect(body.error).toMatchObject({ type: "invalid_request_error", error_code: "invalid_state" });
  });

  it("refuses an expired state", async () => {
    const started = await platform.call("/apps/codehost/connect", { key: owner.key, query: { user_id: "carol" }, body: { redirect_uri: REDIRECT } });
    await platform.database.prisma.platformAppConnectFlow.updateMany({ where: { connectionId: started.body.connection_id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const location = await oauth.authorize(started.body.authorization_url, `${platform.baseUrl}/apps/oauth/callback`);
    const answer = await platform.request(`${location.pathname.replace("/api/v2", "")}${location.search}`, { redirect: "manual" });
    expect(answer.status).toBe(400);
    expect(((await answer.json()) as { error: { error_code: string } }).error.error_code).toBe("invalid_state");
    const complete = await platform.call("/apps/codehost/connect/complete", { key: owner.key, body: { connection_id: started.body.connection_id, user_id: "carol" } });
    expect(complete.status).toBe(409);
  });

  it("refuses a state the platform never issued", async () => {
    // scope: authorization servers add parameters of their own, which the callback accepts.
    const answer = await platform.request("/apps/oauth/callback?code=x&state=made-up&scope=repo", { redirect: "manual" });
    expect(answer.status).toBe(400);
    expect(((await answer.json()) as { error: { error_code: string } }).error.error_code).toBe("invalid_state");
  });

  it("redirects with status error when the person refuses", async () => {
    const started = await platform.call("/apps/codehost/connect", { key: owner.key, query: { user_id: "dave" }, body: { redirect_uri: REDIRECT } });
    const state = new URL(started.body.authorization_url).searchParams.get("state")!;
    const answer = await platform.request(`/apps/oauth/callback?error=access_denied&error_description=no&state=${encodeURIComponent(state)}`, { redirect: "manual" });
    expect(answer.status).toBe(302);
    const target = new URL(answer.headers.get("location")!);
    expect(target.origin + target.pathname).toBe(REDIRECT);
    expect(target.searchParams.get("status")).toBe("error");
    expect(target.searchParams.get("error_description")).toContain("access_denied");
  });

  it("refuses completion by another end-user (404) and by another account (404)", async () => {
    const { started } = await authorize(owner.key, "erin");
    const otherUser = await platform.call("/apps/codehost/connect/complete", { key: owner.key, body: { connection_id: started.connection_id, user_id: "mallory" } });
    expect(otherUser.status).toBe(404);
    const otherAccount = await platform.call("/apps/codehost/connect/complete", { key: stranger.key, body: { connection_id: started.connection_id, user_id: "erin" } });
    expect(otherAccount.status).toBe(404);
    const right = await platform.call("/apps/codehost/connect/complete", { key: owner.key, body: { connection_id: started.connection_id, user_id: "erin" } });
    expect(right.status).toBe(200);
  });

  it("refuses a redirect_uri off the allow-list (422 naming it), and accepts the platform's own origin", async () => {
    const refused = await platform.call("/apps/codehost/connect", { key: owner.key, body: { redirect_uri: "https://evil.example.com/steal", user_id: "alice" } });
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatchObject({ type: "validation_error", error_code: "redirect_uri_not_allowed" });
    expect(refused.body.error.message).toMatch(/^redirect_uri: /);
    const own = await platform.call("/apps/codehost/connect", { key: owner.key, body: { redirect_uri: `${new URL(platform.baseUrl).origin}/apps/done`, user_id: "alice" } });
    expect(own.status).toBe(200);
  });

  it("answers 422 app_not_configured for an OAuth app without credentials, and 404 for an unknown one", async () => {
    const mail = await platform.call("/apps/mail/connect", { key: owner.key, body: { redirect_uri: REDIRECT } });
    expect(mail.status).toBe(422);
    expect(mail.body.error.error_code).toBe("app_not_configured");
    const unknown = await platform.call("/apps/nope/connect", { key: owner.key, body: { redirect_uri: REDIRECT } });
    expect(unknown.status).toBe(404);
  });

  it("hands account-level flows a claim ticket, completed once", async () => {
    const { started, landed } = await authorize(owner.key, undefined);
    const ticket = landed.searchParams.get("connector_claim");
    expect(ticket?.length ?? 0).toBeGreaterThanOrEqual(16);
    const missing = await platform.call("/apps/codehost/connect/complete", { key: owner.key, body: {} });
    expect(missing.status).toBe(422);
    expect(missing.body.error.message).toMatch(/^claim_ticket: /);
    const foreign = await platform.call("/apps/codehost/connect/complete", { key: stranger.key, body: { claim_ticket: ticket } });
    expect(foreign.status).toBe(404);
    const completed = await platform.call("/apps/codehost/connect/complete", { key: owner.key, body: { claim_ticket: ticket } });
    expect(completed.body).toEqual({ status: "active", app: "codehost", connection_id: started.connection_id });
    const again = await platform.call("/apps/codehost/connect/complete", { key: owner.key, body: { claim_ticket: ticket } });
    expect(again.status).toBe(404);
  });

  it("replaces the scope's connection unless add_account, and grants to an agent of the scope", async () => {
    const first = await connect(owner.key, "frank");
    const second = await connect(owner.key, "frank", { add_account: true });
    let list = await platform.call("/apps/codehost/connections", { key: owner.key, query: { user_id: "frank" } });
    expect(list.body.data.map((c: { connection_id: string }) => c.connection_id).sort()).toEqual([first, second].sort());

    const agent = await platform.call("/agents", { key: owner.key, query: { user_id: "frank" }, body: { name: "Helper" } });
    expect(agent.status, JSON.stringify(agent.body)).toBe(201);
    const { started } = await authorize(owner.key, "frank");
    const foreignAgent = await platform.call("/apps/codehost/connect/complete", { key: owner.key, body: { connection_id: started.connection_id, user_id: "frank", agent_id: 999_999 } });
    expect(foreignAgent.status).toBe(404);
    const granted = await platform.call("/apps/codehost/connect/complete", { key: owner.key, body: { connection_id: started.connection_id, user_id: "frank", agent_id: agent.body.id } });
    expect(granted.status).toBe(200);
    list = await platform.call("/apps/codehost/connections", { key: owner.key, query: { user_id: "frank" } });
    expect(list.body.data).toEqual([expect.objectContaining({ connection_id: started.connection_id, agent_ids: [agent.body.id] })]);

    const scope = await platform.database.prisma.platformEndUser.findFirstOrThrow({ where: { accountId: owner.id, externalId: "frank" } });
    expect((await findUsableConnections(platform.database.prisma, { accountId: owner.id, endUserId: scope.id }, agent.body.id)).map((c) => c.id)).toEqual([started.connection_id]);
    expect(await findUsableConnections(platform.database.prisma, { accountId: owner.id, endUserId: scope.id }, agent.body.id + 1)).toEqual([]);
  });
});

describe("native apps", () => {
  it("completes with the code the client received and the same redirect_uri", async () => {
    const started = await platform.call("/apps/native/connect", { key: owner.key, body: { redirect_uri: REDIRECT, user_id: "rita" } });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect(new URL(started.body.authorization_url).searchParams.get("redirect_uri")).toBe(REDIRECT);
    const landed = await oauth.authorize(started.body.authorization_url, REDIRECT);
    const code = landed.searchParams.get("code")!;
    expect(code?.length ?? 0).toBeGreaterThanOrEqual(16);
    const wrongUri = await platform.call("/apps/native/connect/complete", { key: owner.key, body: { connection_id: started.body.connection_id, user_id: "rita", code, redirect_uri: `${FRONTEND}/elsewhere` } });
    expect(wrongUri.status).toBe(422);
    // The flow was used by that attempt: start again.
    const again = await platform.call("/apps/native/connect", { key: owner.key, body: { redirect_uri: REDIRECT, user_id: "rita" } });
    const landedAgain = await oauth.authorize(again.body.authorization_url, REDIRECT);
    const completed = await platform.call("/apps/native/connect/complete", {
      key: owner.key,
      body: { connection_id: again.body.connection_id, user_id: "rita", code: landedAgain.searchParams.get("code"), redirect_uri: REDIRECT },
    });
    expect(completed.status, JSON.stringify(completed.body)).toBe(200);
    expect(completed.body).toEqual({ status: "active", app: "native", connection_id: again.body.connection_id });
    const list = await platform.call("/apps/native/connections", { key: owner.key, query: { user_id: "rita" } });
    expect(list.body.data[0]).toMatchObject({ status: "active", account_label: "octocat" });
    // codehost is not native: a code is refused.
    const notNative = await platform.call("/apps/codehost/connect/complete", { key: owner.key, body: { connection_id: "conn_x", user_id: "rita", code: "c", redirect_uri: REDIRECT } });
    expect(notNative.status).toBe(422);
  });
});

describe("chat workspaces", () => {
  it("lists channels, members and workspaces through the account-level chat connection", async () => {
    const before = await platform.call("/apps/chat/channels", { key: owner.key });
    expect(before.status).toBe(422);
    expect(before.body.error.error_code).toBe("app_not_connected");
    const started = await platform.call("/apps/chat/connect", { key: owner.key, body: { redirect_uri: REDIRECT } });
    const landed = await oauth.authorize(started.body.authorization_url, REDIRECT);
    const completed = await platform.call("/apps/chat/connect/complete", { key: owner.key, body: { claim_ticket: landed.searchParams.get("connector_claim") } });
    expect(completed.status, JSON.stringify(completed.body)).toBe(200);
    const workspaces = await platform.call("/apps/chat/workspaces", { key: owner.key });
    expect(workspaces.body.data).toEqual([{ team_id: "T0001", name: "Acme", connection_id: started.body.connection_id, status: "active" }]);
    const channels = await platform.call("/apps/chat/channels", { key: owner.key });
    expect(channels.body.data).toEqual([
      { id: "C0001", name: "general", is_private: false, team_id: "T0001" },
      { id: "C0002", name: "secret", is_private: true, team_id: "T0001" },
    ]);
    const members = await platform.call("/apps/chat/members", { key: owner.key });
    expect(members.body.data).toEqual([{ id: "U0001", name: "octocat", real_name: "Octo Cat", is_bot: false, team_id: "T0001" }]);
    const connections = await platform.call("/apps/chat/connections", { key: owner.key });
    expect(connections.body.data[0].account_label).toBe("octocat @ Acme");
    // Another account sees nothing of it.
    expect((await platform.call("/apps/chat/workspaces", { key: stranger.key })).body.data).toEqual([]);
    expect((await platform.call("/apps/chat/workspaces/T0001", { key: stranger.key, method: "DELETE" })).status).toBe(404);
    expect((await platform.call("/apps/chat/workspaces/T0001", { key: owner.key, method: "DELETE" })).status).toBe(204);
    expect((await platform.call("/apps/chat/workspaces", { key: owner.key })).body.data).toEqual([]);
  });
});

describe("API-key connections", () => {
  it("connects with a key, sealed, sent in the app's header", async () => {
    const refused = await platform.call("/apps/codehost/connect/api-key", { key: owner.key, body: { api_key: "k" } });
    expect(refused.status).toBe(422);
    expect(refused.body.error.error_code).toBe("wrong_auth_kind");
    const secret = "crm-secret-key-0123456789abcdef";
    const connected = await platform.call("/apps/crm/connect/api-key", { key: owner.key, body: { api_key: secret, user_id: "gina", options: { region: "eu" } } });
    expect(connected.status, JSON.stringify(connected.body)).toBe(200);
    expect(connected.body).toMatchObject({ status: "active", app: "crm" });
    expect(JSON.stringify(connected.body)).not.toContain(secret);
    const authorization = await authorizationFor(ctx(), connected.body.connection_id);
    expect(authorization).toEqual({ ok: true, headers: { "X-Api-Key": secret }, baseUrl: "https://crm.example.test/v1" });
    const list = await platform.call("/apps/connections", { key: owner.key, query: { user_id: "gina" } });
    expect(JSON.stringify(list.body)).not.toContain(secret);
  });
});

describe("managing connections", () => {
  it("patches label and notes; another account or end-user gets 404 on everything", async () => {
    const id = await connect(owner.key, "hank");
    const patched = await platform.call(`/apps/connections/${id}`, { key: owner.key, method: "PATCH", query: { user_id: "hank" }, body: { label: "Work", notes: "main account" } });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({ connection_id: id, status: "active", account_label: "octocat", scopes: expect.any(Array), updated_at: expect.any(String) });
    const full = await platform.call("/apps/connections", { key: owner.key, query: { user_id: "hank" } });
    expect(full.body.data[0]).toMatchObject({ label: "Work", notes: "main account" });

    for (const [key, userId] of [
      [stranger.key, "hank"],
      [owner.key, "ivan"],
      [owner.key, undefined],
    ] as const) {
      const query = userId ? { user_id: userId } : {};
      expect((await platform.call(`/apps/connections/${id}`, { key, method: "PATCH", query, body: { label: "x" } })).status).toBe(404);
      expect((await platform.call(`/apps/connections/${id}`, { key, method: "DELETE", query })).status).toBe(404);
      expect((await platform.call("/apps/connections", { key, query })).body.data.some((c: { connection_id: string }) => c.connection_id === id)).toBe(false);
    }
  });

  it("deletes a connection and revokes its grant at the app", async () => {
    const id = await connect(owner.key, "jane");
    const { access_token } = await tokensOf(id);
    expect(await oauth.validAccessToken(access_token)).not.toBeNull();
    const deleted = await platform.call(`/apps/connections/${id}`, { key: owner.key, method: "DELETE", query: { user_id: "jane" } });
    expect(deleted.status).toBe(204);
    expect(await platform.database.prisma.platformAppConnection.findUnique({ where: { id } })).toBeNull();
    expect(await oauth.validAccessToken(access_token)).toBeNull();
    expect(await authorizationFor(ctx(), id)).toMatchObject({ ok: false, status: "missing" });
  });

  it("disconnects every connection of an app in the scope", async () => {
    await connect(owner.key, "kate");
    await connect(owner.key, "kate", { add_account: true });
    const other = await connect(owner.key, "leo");
    const deleted = await platform.call("/apps/codehost/connections", { key: owner.key, method: "DELETE", query: { user_id: "kate" } });
    expect(deleted.status).toBe(204);
    expect((await platform.call("/apps/codehost/connections", { key: owner.key, query: { user_id: "kate" } })).body.data).toEqual([]);
    expect((await row(other)).status).toBe("active");
  });
});

describe("credentials for tool calls", () => {
  it("refreshes an access token about to expire, once for concurrent callers", async () => {
    const id = await connect(owner.key, "mia");
    const before = await tokensOf(id);
    await platform.database.prisma.platformAppConnection.update({ where: { id }, data: { expiresAt: new Date(Date.now() + 5_000) } });
    const refreshes = oauth.grants.refresh_token ?? 0;
    const [a, b] = await Promise.all([authorizationFor(ctx(), id), authorizationFor(ctx(), id)]);
    expect(oauth.grants.refresh_token).toBe(refreshes + 1);
    expect(a).toEqual(b);
    const after = await tokensOf(id);
    expect(after.access_token).not.toBe(before.access_token);
    expect(after.refresh_token).not.toBe(before.refresh_token);
    expect(a).toMatchObject({ ok: true, headers: { Authorization: `Bearer ${after.access_token}` } });
    expect((await row(id)).expiresAt!.getTime()).toBeGreaterThan(Date.now() + 60_000);
    const response = await fetch(`${codehost.baseUrl}/user`, { headers: (a as { headers: Record<string, string> }).headers });
    expect(response.status).toBe(200);
  });

  it("refreshes after a 401 once; a second caller with the old token gets the new one", async () => {
    const id = await connect(owner.key, "nina");
    const before = await tokensOf(id);
    const refreshes = oauth.grants.refresh_token ?? 0;
    const first = await refreshAfterUnauthorized(ctx(), id, before.access_token);
    const second = await refreshAfterUnauthorized(ctx(), id, before.access_token);
    expect(oauth.grants.refresh_token).toBe(refreshes + 1);
    expect(first).toEqual(second);
    expect(first).toMatchObject({ ok: true });
  });

  it("marks the connection expired when the refresh is refused (invalid_grant)", async () => {
    const id = await connect(owner.key, "omar");
    await oauth.revokeGrantOf((await tokensOf(id)).refresh_token!);
    await platform.database.prisma.platformAppConnection.update({ where: { id }, data: { expiresAt: new Date(Date.now() - 1_000) } });
    const result = await authorizationFor(ctx(), id);
    expect(result).toMatchObject({ ok: false, status: "expired" });
    expect(await row(id)).toMatchObject({ status: "expired", lastError: expect.stringContaining("invalid_grant"), refreshingUntil: null });
    const listed = await platform.call("/apps", { key: owner.key, query: { user_id: "omar" } });
    expect(listed.body.data.find((app: { slug: string }) => app.slug === "codehost")).toMatchObject({ connected: false, connection_status: "expired" });
  });

  it("keeps using a still-valid token when the refresh fails for a passing reason; error once it no longer works; active again after", async () => {
    const id = await connect(owner.key, "sara");
    const apps = platform.config.apps!;
    const down = { ...platform.config, apps: { ...apps, overrides: { ...apps.overrides, codehost: { ...apps.overrides!.codehost, tokenUrl: "http://127.0.0.1:9/token" } } } };
    const before = await tokensOf(id);
    await platform.database.prisma.platformAppConnection.update({ where: { id }, data: { expiresAt: new Date(Date.now() + 30_000) } });
    const stillValid = await authorizationFor({ prisma: platform.database.prisma, config: down }, id);
    expect(stillValid).toMatchObject({ ok: true, headers: { Authorization: `Bearer ${before.access_token}` } });
    expect(await row(id)).toMatchObject({ status: "active", lastError: expect.stringContaining("token refresh"), refreshingUntil: null });

    await platform.database.prisma.platformAppConnection.update({ where: { id }, data: { expiresAt: new Date(Date.now() - 1_000) } });
    const gone = await authorizationFor({ prisma: platform.database.prisma, config: down }, id);
    expect(gone).toMatchObject({ ok: false, status: "error" });
    expect((await row(id)).status).toBe("error");

    const back = await authorizationFor(ctx(), id);
    expect(back).toMatchObject({ ok: true });
    expect(await row(id)).toMatchObject({ status: "active", lastError: null });
  });

  it("marks an API-key connection expired when the app refuses the key", async () => {
    const connected = await platform.call("/apps/crm/connect/api-key", { key: owner.key, body: { api_key: "crm-key-to-refuse", user_id: "tom" } });
    const result = await refreshAfterUnauthorized(ctx(), connected.body.connection_id, "crm-key-to-refuse");
    expect(result).toMatchObject({ ok: false, status: "expired" });
    expect(await authorizationFor(ctx(), connected.body.connection_id)).toMatchObject({ ok: false, status: "expired" });
  });

  it("offers runs only connections of configured apps", async () => {
    const id = await connect(owner.key, "uma");
    const scope = await platform.database.prisma.platformEndUser.findFirstOrThrow({ where: { accountId: owner.id, externalId: "uma" } });
    const key = { accountId: owner.id, endUserId: scope.id };
    expect((await connectionsForRun(ctx(), key, null)).map((c) => c.id)).toEqual([id]);
    const apps = platform.config.apps!;
    const unconfigured = { ...platform.config, apps: { ...apps, overrides: { ...apps.overrides, codehost: { ...apps.overrides!.codehost, clientSecret: undefined } } } };
    // An override without a secret leaves the app's none (the built-in has none): not configured.
    expect((await connectionsForRun({ prisma: platform.database.prisma, config: unconfigured }, key, null)).map((c) => c.id)).toEqual([]);
  });

  it("opens credentials sealed under a previous key and seals them again under the current one", async () => {
    const id = await connect(owner.key, "pia");
    const rotated = await startPlatform({ database: platform.database, secretKey: "a-new-secret-key", previousSecretKeys: [platform.config.secretKey], apps: platform.config.apps });
    try {
      const sealedBefore = (await row(id)).credentialsSealed;
      const result = await authorizationFor({ prisma: platform.database.prisma, config: rotated.config }, id);
      expect(result).toMatchObject({ ok: true });
      const sealedAfter = (await row(id)).credentialsSealed;
      expect(sealedAfter).not.toBe(sealedBefore);
      expect(openCredentials(rotated.config, sealedAfter!).stale).toBe(false);
    } finally {
      await rotated.close();
    }
  });
});

describe("secrets", () => {
  it("keeps tokens out of every column and every log line", async () => {
    const id = await connect(owner.key, "quinn");
    await platform.database.prisma.platformAppConnection.update({ where: { id }, data: { expiresAt: new Date(Date.now() - 1) } });
    await authorizationFor(ctx(), id);
    const tokens = await tokensOf(id);
    // The current tokens, every access token the apps were ever shown, the client secret and an API key.
    const seen = [...codehost.calls, ...chat.calls].map((call) => call.token).filter((token): token is string => token !== null);
    const secrets = [...new Set([tokens.access_token, tokens.refresh_token!, oauth.client.clientSecret, "crm-secret-key-0123456789abcdef", ...seen])];
    expect(seen.length).toBeGreaterThan(0);
    const rows = await platform.database.prisma.$queryRawUnsafe<Record<string, unknown>[]>(
      "SELECT c.*, f.* FROM platform_app_connections c LEFT JOIN platform_app_connect_flows f ON f.connection_id = c.id",
    );
    const dump = JSON.stringify(rows, (_key, value: unknown) => (typeof value === "bigint" ? String(value) : value));
    expect(rows.length).toBeGreaterThan(0);
    // The capture works: the refused refresh of an earlier test was logged.
    expect(logged.some((line) => line.includes("app token refresh failed"))).toBe(true);
    for (const secret of secrets) {
      expect(dump).not.toContain(secret);
      for (const line of logged) expect(line).not.toContain(secret);
    }
    // And from every answer.
    const listed = await platform.call("/apps/connections", { key: owner.key, query: { user_id: "quinn" } });
    for (const secret of secrets) expect(JSON.stringify(listed.body)).not.toContain(secret);
  });
});

describe("not offered here", () => {
  it("answers 422 naming why, and 404 for an unknown app", async () => {
    const install = await platform.call("/apps/chat/install", { key: owner.key, method: "POST" });
    expect(install.status).toBe(422);
    expect(install.body.error.error_code).toBe("feature_not_available");
    const provision = await platform.call("/apps/codehost/provision", { key: owner.key, body: {} });
    expect(provision.body.error.error_code).toBe("app_not_provisionable");
    const external = await platform.call("/apps/codehost/connect/external-oauth", { key: owner.key, body: { redirect_uri: REDIRECT } });
    expect(external.body.error.error_code).toBe("feature_not_available");
    const customers = await platform.call("/apps/codehost/customers", { key: owner.key });
    expect(customers.status).toBe(422);
    const channels = await platform.call("/apps/codehost/channels", { key: owner.key });
    expect(channels.body.error.error_code).toBe("feature_not_available");
    const unknown = await platform.call("/apps/nope/install", { key: owner.key, method: "POST" });
    expect(unknown.status).toBe(404);
  });
});
