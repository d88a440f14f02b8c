// Channels over HTTP: the chat and code-host channels' identity states, the account's own app of each
// (validated, sealed, never returned, never another account's), the install links (503 without a chat
// app), and the connect flows, refreshes and revocations of an account with its own identity running
// against the loopback OAuth server with that identity's client. The operator's shared code host here
// names a client the OAuth server does not know, so only the account's own client can succeed.
import { generateKeyPairSync } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { authorizationFor, connectionsForRun, openCredentials } from "@/server/platform/services/apps/app-credentials";
import { startChatFake, startCodehostFake, type ChatFake, type CodehostFake } from "../../helpers/app-fakes";
import { startOAuthServer, type OAuthServer } from "../../helpers/oauth-server";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";

const FRONTEND = "https://app.example.test";
const REDIRECT = `${FRONTEND}/connected`;
const SHARED_CODEHOST_CLIENT = "shared-codehost-client";
const SHARED_CODEHOST_SECRET = "shared-codehost-secret-never-registered";
const SIGNING_SECRET = "chat-signing-secret-0123456789abcdef";

const PRIVATE_KEY = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs1", format: "pem" }).toString();

let oauth: OAuthServer;
let codehost: CodehostFake;
let chat: ChatFake;
let platform: PlatformHarness;

beforeAll(async () => {
  oauth = await startOAuthServer();
  codehost = await startCodehostFake(oauth);
  chat = await startChatFake(oauth);
  const urls = { authorizationUrl: oauth.authorizationUrl, tokenUrl: oauth.tokenUrl, revocationUrl: oauth.revocationUrl, issuer: oauth.issuer };
  platform = await startPlatform({
    apps: {
      overrides: {
        codehost: { ...urls, clientId: SHARED_CODEHOST_CLIENT, clientSecret: SHARED_CODEHOST_SECRET, apiBaseUrl: codehost.baseUrl },
        // No shared chat client: the chat app is unavailable to an account without its own identity.
        chat: { ...urls, apiBaseUrl: chat.baseUrl, scopes: ["channels:read"] },
      },
      redirectOrigins: [FRONTEND],
    },
  });
  oauth.register([`${platform.baseUrl}/apps/oauth/callback`, REDIRECT]);
});

afterAll(async () => {
  await platform?.close();
  await codehost?.close();
  await chat?.close();
  await oauth?.close();
});

beforeEach(() => {
  oauth.signInAs("octocat");
  oauth.setAccessTokenTtl(3600);
});

const chatIdentity = (overrides: Record<string, unknown> = {}) => ({
  channel: "chat",
  client_id: oauth.client.clientId,
  client_secret: oauth.client.clientSecret,
  signing_secret: SIGNING_SECRET,
  ...overrides,
});

const codehostIdentity = (overrides: Record<string, unknown> = {}) => ({
  channel: "codehost",
  client_id: oauth.client.clientId,
  client_secret: oauth.client.clientSecret,
  signing_secret: "codehost-webhook-secret-abcdef",
  codehost_app_id: 123456,
  codehost_app_slug: "acme-agents",
  codehost_private_key: PRIVATE_KEY,
  ...overrides,
});

const putIdentity = (who: Account, body: unknown) => platform.call("/channels/identities", { method: "PUT", key: who.key, body });
const channelsOf = async (who: Account) => {
  const listed = await platform.call("/channels", { key: who.key });
  expect(listed.status, JSON.stringify(listed.body)).toBe(200);
  return Object.fromEntries((listed.body.data as { channel: string }[]).map((entry) => [entry.channel, entry])) as Record<string, any>;
};
const clientIdOf = (url: string) => new URL(url).searchParams.get("client_id");

function expectFieldError(response: { status: number; body: any }, field: string) {
  expect(response.status, JSON.stringify(response.body)).toBe(422);
  expect(response.body.error.type).toBe("validation_error");
  expect(response.body.error.message).toContain(field);
  expect(JSON.stringify(response.body.error.details ?? {})).toContain(field);
}

describe("GET /channels", () => {
  it("shows both channels: the shared code host, and the chat app unavailable without any app", async () => {
    const who = await platform.signup();
    const channels = await channelsOf(who);
    expect(Object.keys(channels).sort()).toEqual(["chat", "codehost"]);
    expect(channels.chat).toMatchObject({ app: "chat", identity: "unavailable", client_id: null, client_secret_set: false, signing_secret_set: false, updated_at: null });
    expect(channels.codehost).toMatchObject({
      app: "codehost",
      identity: "shared",
      client_id: SHARED_CODEHOST_CLIENT,
      client_secret_set: false,
      codehost_app_id: null,
      codehost_private_key_set: false,
    });
    expect(JSON.stringify(channels)).not.toContain(SHARED_CODEHOST_SECRET);
  });

  it("is account-scoped: user_id is refused", async () => {
    const who = await platform.signup();
    const refused = await platform.call("/channels", { key: who.key, query: { user_id: "alice" } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.error_code).toBe("unknown_query_parameter");
  });
});

describe("PUT /channels/identities", () => {
  it("refuses what the spec requires, naming the field", async () => {
    const who = await platform.signup();
    expectFieldError(await putIdentity(who, { client_id: "a", client_secret: "b", signing_secret: "c" }), "channel");
    expectFieldError(await putIdentity(who, chatIdentity({ channel: "mail" })), "channel");
    expectFieldError(await putIdentity(who, chatIdentity({ client_id: undefined })), "client_id");
    expectFieldError(await putIdentity(who, chatIdentity({ client_id: "   " })), "client_id");
    expectFieldError(await putIdentity(who, chatIdentity({ client_secret: undefined })), "client_secret");
    expectFieldError(await putIdentity(who, chatIdentity({ signing_secret: undefined })), "signing_secret");
    for (const field of ["codehost_app_id", "codehost_app_slug", "codehost_private_key"]) {
      expectFieldError(await putIdentity(who, codehostIdentity({ [field]: undefined })), field);
      expectFieldError(await putIdentity(who, chatIdentity({ [field]: codehostIdentity()[field as keyof ReturnType<typeof codehostIdentity>] })), field);
    }
    expectFieldError(await putIdentity(who, codehostIdentity({ codehost_private_key: " " })), "codehost_private_key");
    expectFieldError(await putIdentity(who, codehostIdentity({ codehost_app_id: -4 })), "codehost_app_id");
    expectFieldError(await putIdentity(who, codehostIdentity({ codehost_app_slug: "x".repeat(101) })), "codehost_app_slug");
    // Nothing was stored by any of them.
    expect((await channelsOf(who)).chat.identity).toBe("unavailable");
    expect(await platform.database.prisma.platformChannelIdentity.count({ where: { accountId: who.id } })).toBe(0);
  });

  it("stores the identity sealed, returns which fields are set and never a secret, and replaces it whole", async () => {
    const who = await platform.signup();
    const stored = await putIdentity(who, codehostIdentity({ client_id: "first-client", codehost_app_id: "42" }));
    expect(stored.status, JSON.stringify(stored.body)).toBe(200);
    expect(stored.body).toMatchObject({
      channel: "codehost",
      identity: "own",
      client_id: "first-client",
      client_secret_set: true,
      signing_secret_set: true,
      codehost_app_id: "42",
      codehost_app_slug: "acme-agents",
      codehost_private_key_set: true,
    });
    expect(stored.body.updated_at).toEqual(expect.any(String));
    const listed = await platform.call("/channels", { key: who.key });
    for (const body of [stored.body, listed.body]) {
      const text = JSON.stringify(body);
      expect(text).not.toContain(oauth.client.clientSecret);
      expect(text).not.toContain("codehost-webhook-secret");
      expect(text).not.toContain("PRIVATE KEY");
    }
    const row = await platform.database.prisma.platformChannelIdentity.findUniqueOrThrow({ where: { accountId_channel: { accountId: who.id, channel: "codehost" } } });
    const rowText = JSON.stringify(row);
    expect(rowText).not.toContain(oauth.client.clientSecret);
    expect(rowText).not.toContain("codehost-webhook-secret");
    expect(rowText).not.toContain("PRIVATE KEY");

    const replaced = await putIdentity(who, codehostIdentity({ client_id: "second-client", codehost_app_slug: "other-app" }));
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ client_id: "second-client", codehost_app_id: "123456", codehost_app_slug: "other-app" });
    expect(await platform.database.prisma.platformChannelIdentity.count({ where: { accountId: who.id } })).toBe(1);
    const channels = await channelsOf(who);
    expect(channels.codehost.client_id).toBe("second-client");
    expect(channels.chat.identity).toBe("unavailable");
  });
});

describe("GET /channels/install-links", () => {
  it("answers 503 in the envelope when the chat app is unavailable, even with the code host configured", async () => {
    const who = await platform.signup();
    expect((await channelsOf(who)).codehost.identity).toBe("shared");
    for (const query of [{}, { user_id: "alice" }]) {
      const refused = await platform.call("/channels/install-links", { key: who.key, query });
      expect(refused.status, JSON.stringify(refused.body)).toBe(503);
      expect(refused.body.error).toMatchObject({ type: "api_error", code: 503, error_code: "chat_app_unavailable" });
      expect(refused.body.error.request_id).toEqual(expect.any(String));
    }
    // The own code host does not make the chat app available either.
    expect((await putIdentity(who, codehostIdentity())).status).toBe(200);
    expect((await platform.call("/channels/install-links", { key: who.key })).status).toBe(503);
  });

  it("refuses a redirect_uri off the allowed origins", async () => {
    const who = await platform.signup();
    expect((await putIdentity(who, chatIdentity())).status).toBe(200);
    const refused = await platform.call("/channels/install-links", { key: who.key, query: { redirect_uri: "https://evil.example/landing" } });
    expectFieldError(refused, "redirect_uri");
  });

  it("installs the chat app with the account's own client: the link completes as an account-level connection", async () => {
    const who = await platform.signup();
    expect((await putIdentity(who, chatIdentity())).status).toBe(200);
    const links = await platform.call("/channels/install-links", { key: who.key, query: { redirect_uri: REDIRECT } });
    expect(links.status, JSON.stringify(links.body)).toBe(200);
    expect(links.body.chat).toMatchObject({ identity: "own", connection_id: expect.stringMatching(/^conn_/) });
    expect(clientIdOf(links.body.chat.install_url)).toBe(oauth.client.clientId);
    // The code host is the shared one here.
    expect(links.body.codehost.identity).toBe("shared");
    expect(clientIdOf(links.body.codehost.install_url)).toBe(SHARED_CODEHOST_CLIENT);

    const landed = await oauth.authorize(links.body.chat.install_url, REDIRECT);
    expect(landed.searchParams.get("status"), landed.searchParams.get("error_description") ?? "").toBe("authorized");
    expect(landed.searchParams.get("connection_id")).toBe(links.body.chat.connection_id);
    const completed = await platform.call("/apps/chat/connect/complete", { key: who.key, body: { claim_ticket: landed.searchParams.get("connector_claim") } });
    expect(completed.status, JSON.stringify(completed.body)).toBe(200);
    expect(completed.body).toMatchObject({ status: "active", app: "chat", connection_id: links.body.chat.connection_id });
    const workspaces = await platform.call("/apps/chat/workspaces", { key: who.key });
    expect(workspaces.body.data).toEqual([expect.objectContaining({ team_id: "T0001", connection_id: links.body.chat.connection_id, status: "active" })]);
    // GET /apps sees the chat app configured for this account.
    const apps = await platform.call("/apps", { key: who.key });
    expect(apps.body.data.find((app: { slug: string }) => app.slug === "chat")).toMatchObject({ configured: true, connected: true });
    // Runs are offered it, though the operator configured no chat app.
    const offered = await connectionsForRun({ prisma: platform.database.prisma, config: platform.config }, { accountId: who.id, endUserId: null }, null);
    expect(offered.map((row) => row.id)).toEqual([links.body.chat.connection_id]);
  });

  it("installs the code host for an end-user with the account's own client, and refreshes and revokes with it", async () => {
    const who = await platform.signup();
    expect((await putIdentity(who, chatIdentity())).status).toBe(200);
    expect((await putIdentity(who, codehostIdentity())).status).toBe(200);
    const links = await platform.call("/channels/install-links", { key: who.key, query: { user_id: "alice", redirect_uri: REDIRECT } });
    expect(links.status, JSON.stringify(links.body)).toBe(200);
    expect(links.body.codehost.identity).toBe("own");
    expect(clientIdOf(links.body.codehost.install_url)).toBe(oauth.client.clientId);

    const landed = await oauth.authorize(links.body.codehost.install_url, REDIRECT);
    expect(landed.searchParams.get("status"), landed.searchParams.get("error_description") ?? "").toBe("authorized");
    expect(landed.searchParams.has("connector_claim")).toBe(false);
    const id = links.body.codehost.connection_id as string;
    const completed = await platform.call("/apps/codehost/connect/complete", { key: who.key, body: { connection_id: id, user_id: "alice" } });
    expect(completed.status, JSON.stringify(completed.body)).toBe(200);
    const connections = await platform.call("/apps/codehost/connections", { key: who.key, query: { user_id: "alice" } });
    expect(connections.body.data).toEqual([expect.objectContaining({ connection_id: id, status: "active", account_label: "octocat" })]);

    // A due refresh goes to the token endpoint with the account's client (the shared one is unknown there).
    const refreshes = oauth.grants.refresh_token ?? 0;
    await platform.database.prisma.platformAppConnection.update({ where: { id }, data: { expiresAt: new Date(Date.now() - 1_000) } });
    const authorization = await authorizationFor({ prisma: platform.database.prisma, config: platform.config }, id);
    expect(authorization.ok, JSON.stringify(authorization)).toBe(true);
    expect(oauth.grants.refresh_token).toBe(refreshes + 1);

    // Disconnecting revokes at the app with the account's client, which ends the grant.
    const row = await platform.database.prisma.platformAppConnection.findUniqueOrThrow({ where: { id } });
    const { credentials } = openCredentials(platform.config, row.credentialsSealed!);
    if (credentials.kind !== "oauth2") throw new Error("not oauth");
    expect(await oauth.validAccessToken(credentials.access_token)).not.toBeNull();
    const deleted = await platform.call(`/apps/connections/${id}`, { method: "DELETE", key: who.key, query: { user_id: "alice" } });
    expect(deleted.status).toBe(204);
    expect(await oauth.validAccessToken(credentials.access_token)).toBeNull();
  });

  it("exchanges the code with the account's own client secret: a wrong one fails the connection", async () => {
    const who = await platform.signup();
    expect((await putIdentity(who, codehostIdentity({ client_secret: "not-the-registered-secret" }))).status).toBe(200);
    const started = await platform.call("/apps/codehost/connect", { key: who.key, body: { redirect_uri: REDIRECT } });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect(clientIdOf(started.body.authorization_url)).toBe(oauth.client.clientId);
    const landed = await oauth.authorize(started.body.authorization_url, REDIRECT);
    expect(landed.searchParams.get("status")).toBe("error");
    expect(landed.searchParams.get("error_description")).toMatch(/invalid_client/);
    expect(landed.searchParams.get("error_description")).not.toContain("not-the-registered-secret");
  });

  it("defaults the landing page to the platform's own origin", async () => {
    const who = await platform.signup();
    expect((await putIdentity(who, chatIdentity())).status).toBe(200);
    const links = await platform.call("/channels/install-links", { key: who.key });
    expect(links.status, JSON.stringify(links.body)).toBe(200);
    const flow = await platform.database.prisma.platformAppConnectFlow.findFirstOrThrow({ where: { connectionId: links.body.chat.connection_id } });
    expect(flow.redirectUri).toBe(`${new URL(platform.baseUrl).origin}/`);
  });
});

describe("isolation", () => {
  it("never shows or uses another account's identity", async () => {
    const owner = await platform.signup();
    const stranger = await platform.signup();
    expect((await putIdentity(owner, chatIdentity())).status).toBe(200);
    expect((await putIdentity(owner, codehostIdentity({ client_id: oauth.client.clientId }))).status).toBe(200);

    const theirs = await channelsOf(stranger);
    expect(theirs.chat).toMatchObject({ identity: "unavailable", client_id: null, client_secret_set: false });
    expect(theirs.codehost).toMatchObject({ identity: "shared", client_id: SHARED_CODEHOST_CLIENT, codehost_app_id: null });
    expect((await platform.call("/channels/install-links", { key: stranger.key })).status).toBe(503);
    const started = await platform.call("/apps/codehost/connect", { key: stranger.key, body: { redirect_uri: REDIRECT } });
    expect(started.status).toBe(200);
    expect(clientIdOf(started.body.authorization_url)).toBe(SHARED_CODEHOST_CLIENT);
    const chatConnect = await platform.call("/apps/chat/connect", { key: stranger.key, body: { redirect_uri: REDIRECT } });
    expect(chatConnect.status).toBe(422);
    expect(chatConnect.body.error.error_code).toBe("app_not_configured");
    const apps = await platform.call("/apps", { key: stranger.key });
    expect(apps.body.data.find((app: { slug: string }) => app.slug === "chat").configured).toBe(false);

    // The stranger's own identity changes only the stranger's.
    expect((await putIdentity(stranger, chatIdentity({ client_id: "stranger-client" }))).status).toBe(200);
    expect((await channelsOf(owner)).chat.client_id).toBe(oauth.client.clientId);
    expect((await channelsOf(stranger)).chat.client_id).toBe("stranger-client");
  });
});
