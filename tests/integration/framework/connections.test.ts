// tRPC `connections` and the OAuth callback route over the real embedded platform: the apps a tenant
// offers (admins), a member's connections through their own platform end-user (start → consent at a
// loopback OAuth server → the platform's callback → ours → complete, API keys, relabel, disconnect),
// refusal of apps the tenant does not offer, isolation between members and tenants, the callback's
// handling of its state and return path, and a member's run that waits for the code host.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TRPCError } from "@trpc/server";
import { handleConnectionCallback } from "@/server/framework/connections/callback";
import { signConnectionState } from "@/server/framework/tenancy/connection-state";
import { startCodehostFake, type CodehostFake } from "../../helpers/app-fakes";
import { startFramework, type FrameworkHarness } from "../../helpers/framework";
import { startOAuthServer, type OAuthServer } from "../../helpers/oauth-server";

// The framework's public origin (tRPC callers without a request fall back to it) and its /api/v2.
const ORIGIN = "http://localhost:3000";
const PLATFORM_PUBLIC = `${ORIGIN}/api/v2`;
const PLATFORM_CALLBACK = `${PLATFORM_PUBLIC}/apps/oauth/callback`;

let oauth: OAuthServer;
let codehost: CodehostFake;
let fw: FrameworkHarness;
beforeAll(async () => {
  oauth = await startOAuthServer();
  codehost = await startCodehostFake(oauth);
  fw = await startFramework({
    outboundAllowLoopback: true,
    // As embedded in Next: the platform's callback is on the framework's own origin.
    publicBaseUrl: PLATFORM_PUBLIC,
    apps: {
      overrides: {
        codehost: {
          clientId: oauth.client.clientId,
          clientSecret: oauth.client.clientSecret,
          authorizationUrl: oauth.authorizationUrl,
          tokenUrl: oauth.tokenUrl,
          revocationUrl: oauth.revocationUrl,
          issuer: oauth.issuer,
          apiBaseUrl: codehost.baseUrl,
        },
      },
      content: {
        apps: [
          {
            slug: "tracker",
            name: "Tracker",
            description: "A vendor app with an API key",
            auth: "api_key",
            api_key: { header: "X-Api-Key" },
            api_base_url: "https://tracker.example.test/v1",
            tools: [{ name: "list_issues", description: "List issues", method: "GET", path: "/issues" }],
          },
        ],
      },
    },
  });
  oauth.register([PLATFORM_CALLBACK]);
});
afterAll(async () => {
  await fw?.close();
  await codehost?.close();
  await oauth?.close();
});

async function codeOf(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    return error instanceof TRPCError ? error.code : String(error);
  }
  return "resolved";
}

/**
 * The person at the OAuth server (consents, or refuses), then the platform's callback: where the
 * platform sends the browser next (our callback, with connection_id, app and status).
 */
async function consent(authorizationUrl: string, options?: { deny?: boolean }): Promise<string> {
  const atPlatform = options?.deny
    ? `${PLATFORM_CALLBACK}?error=access_denied&state=${encodeURIComponent(new URL(authorizationUrl).searchParams.get("state")!)}`
    : (await oauth.authorize(authorizationUrl, PLATFORM_CALLBACK)).toString();
  const answer = await fw.app.fetch(new Request(atPlatform, { redirect: "manual" }));
  expect(answer.status).toBe(302);
  return answer.headers.get("location")!;
}

/**
 * The page the callback answers in a browser signed in as `as` (an email; null: no session, as in the
 * embed's popup), and what its script would post or where it would go.
 */
async function callback(url: string, as: string | null = "member@acme.test") {
  const sessionUser = as === null ? undefined : await userId(as);
  const response = await handleConnectionCallback(new Request(url), new URL(url).pathname.split("/").pop()!, {
    prisma: fw.database.prisma,
    connect: fw.connect,
    sessionUserId: async () => sessionUser,
  });
  const html = await response.text();
  const data = JSON.parse(/<script type="application\/json" id="inlay-connection">(.*?)<\/script>/s.exec(html)![1]!) as {
    message: { type: string; app: string; status: string; connectionId?: string; message?: string };
    mode: string;
    returnUrl: string;
    opener?: string;
  };
  return { response, html, ...data };
}

const tenantId = (slug: string) => fw.database.prisma.tenant.findUniqueOrThrow({ where: { slug } }).then((tenant) => tenant.id);
const userId = (email: string) => fw.database.prisma.user.findUniqueOrThrow({ where: { email } }).then((user) => user.id);

describe("connections: offered apps (admins)", () => {
  it("lists the catalogue with what the tenant offers, and turns apps on and off", async () => {
    const admin = await fw.callerFor("admin@acme.test");
    expect((await admin.connections.tenantApps()).every((app) => !app.offered)).toBe(true);
    expect(await admin.connections.setTenantApp({ app: "codehost", enabled: true })).toEqual({ app: "codehost", enabled: true });
    await admin.connections.setTenantApp({ app: "tracker", enabled: true });
    const apps = await admin.connections.tenantApps();
    expect(apps.find((app) => app.slug === "codehost")).toMatchObject({ name: "Code host", auth: "oauth2", offered: true });
    expect(apps.find((app) => app.slug === "mail")).toMatchObject({ offered: false });
    // Another tenant offers nothing of it.
    const globex = await fw.callerFor("admin@globex.test");
    expect((await globex.connections.tenantApps()).some((app) => app.offered)).toBe(false);
  });

  it("refuses an app the catalogue lacks, and members", async () => {
    const admin = await fw.callerFor("admin@acme.test");
    expect(await codeOf(admin.connections.setTenantApp({ app: "nope", enabled: true }))).toBe("NOT_FOUND");
    expect(await codeOf(admin.connections.setTenantApp({ app: "Bad Name!", enabled: true }))).toBe("BAD_REQUEST");
    const member = await fw.callerFor("member@acme.test");
    expect(await codeOf(member.connections.setTenantApp({ app: "mail", enabled: true }))).toBe("FORBIDDEN");
    expect(await codeOf(member.connections.tenantApps())).toBe("FORBIDDEN");
    expect(await codeOf(member.connections.memberConnections())).toBe("FORBIDDEN");
  });
});

describe("connections: a member", () => {
  it("sees only the offered apps, connects codehost through the callback, relabels and disconnects", async () => {
    const member = await fw.callerFor("member@acme.test");
    const listed = await member.connections.list();
    expect(listed.map((app) => app.slug).sort()).toEqual(["codehost", "tracker"]);
    expect(listed.find((app) => app.slug === "codehost")).toMatchObject({ status: "not_connected", accountLabel: null, connections: [] });

    const started = await member.connections.start({ app: "codehost", returnTo: "/agents/1/chat" });
    expect(started.authorizationUrl).toMatch(/^https?:\/\//);
    const back = await consent(started.authorizationUrl);
    expect(new URL(back).pathname).toMatch(/^\/api\/connections\/callback\/[\w-]+\.[\w-]+\.[\w-]+$/);

    const page = await callback(back);
    expect(page.response.headers.get("content-security-policy")).toContain("script-src 'nonce-");
    expect(page.response.headers.get("referrer-policy")).toBe("no-referrer");
    expect(page.message).toEqual({ type: "inlay:connection", app: "codehost", status: "connected" });
    expect(page.mode).toBe("popup");
    expect(page.returnUrl).toBe("/agents/1/chat?connected=codehost&connection_status=connected");

    const [codehost] = (await member.connections.list()).filter((app) => app.slug === "codehost");
    expect(codehost).toMatchObject({ status: "connected", accountLabel: "octocat" });
    const connectionId = codehost!.connections[0]!.connectionId;

    expect(await member.connections.relabel({ connectionId, label: "Work" })).toMatchObject({ connectionId, label: "Work" });
    expect((await member.connections.list()).find((app) => app.slug === "codehost")!.connections[0]!.label).toBe("Work");

    // Another member cannot touch it, nor see it.
    const admin = await fw.callerFor("admin@acme.test");
    expect(await codeOf(admin.connections.relabel({ connectionId, label: "Mine" }))).toBe("NOT_FOUND");
    expect(await codeOf(admin.connections.disconnect({ app: "codehost", connectionId }))).toBe("NOT_FOUND");
    expect((await admin.connections.list()).find((app) => app.slug === "codehost")!.status).toBe("not_connected");

    // The admins' view: statuses only.
    const rows = await admin.connections.memberConnections();
    const max = rows.find((row) => row.email === "member@acme.test")!;
    expect(max.apps).toEqual([
      { app: "codehost", status: "connected" },
      { app: "tracker", status: "not_connected" },
    ]);
    expect(JSON.stringify(rows)).not.toMatch(/token|conn_|octocat/);

    await member.connections.disconnect({ app: "codehost", connectionId });
    expect((await member.connections.list()).find((app) => app.slug === "codehost")!.status).toBe("not_connected");
  });

  it("shows an expired connection as expired (to reconnect)", async () => {
    const member = await fw.callerFor("member@acme.test");
    const started = await member.connections.start({ app: "codehost" });
    await callback(await consent(started.authorizationUrl));
    const connectionId = (await member.connections.list()).find((app) => app.slug === "codehost")!.connections[0]!.connectionId;
    await fw.database.prisma.platformAppConnection.update({ where: { id: connectionId }, data: { status: "expired" } });
    expect((await member.connections.list()).find((app) => app.slug === "codehost")).toMatchObject({ status: "expired", accountLabel: "octocat" });
    await member.connections.disconnect({ app: "codehost" });
    expect((await member.connections.list()).find((app) => app.slug === "codehost")!.connections).toEqual([]);
  });

  it("keeps the redirect_uri within the platform's limit: a return path of 500 characters, not more", async () => {
    const member = await fw.callerFor("member@acme.test");
    const longest = `/${"a".repeat(499)}`;
    expect((await member.connections.start({ app: "codehost", mode: "redirect", returnTo: longest })).authorizationUrl).toMatch(/^http/);
    expect(await codeOf(member.connections.start({ app: "codehost", returnTo: `${longest}a` }))).toBe("BAD_REQUEST");
  });

  it("connects an API-key app", async () => {
    const member = await fw.callerFor("member@acme.test");
    expect(await member.connections.connectApiKey({ app: "tracker", apiKey: "tk_live_1234" })).toEqual({ status: "active", app: "tracker" });
    expect((await member.connections.list()).find((app) => app.slug === "tracker")).toMatchObject({ status: "connected" });
    expect(await codeOf(member.connections.connectApiKey({ app: "tracker", apiKey: "  " }))).toBe("BAD_REQUEST");
  });

  it("refuses apps the tenant does not offer, whatever the path", async () => {
    const member = await fw.callerFor("member@acme.test");
    expect(await codeOf(member.connections.start({ app: "mail" }))).toBe("FORBIDDEN");
    expect(await codeOf(member.connections.connectApiKey({ app: "mail", apiKey: "x" }))).toBe("FORBIDDEN");
    expect(await codeOf(member.connections.complete({ app: "mail", connectionId: "conn_x" }))).toBe("FORBIDDEN");
    // Globex offers nothing: its admin cannot connect acme's apps.
    const globex = await fw.callerFor("admin@globex.test");
    expect(await globex.connections.list()).toEqual([]);
    expect(await codeOf(globex.connections.start({ app: "codehost" }))).toBe("FORBIDDEN");
    // An app turned off stops new connections.
    const admin = await fw.callerFor("admin@acme.test");
    await admin.connections.setTenantApp({ app: "tracker", enabled: false });
    expect(await codeOf(member.connections.connectApiKey({ app: "tracker", apiKey: "k" }))).toBe("FORBIDDEN");
    expect((await member.connections.list()).map((app) => app.slug)).toEqual(["codehost"]);
    await admin.connections.setTenantApp({ app: "tracker", enabled: true });
  });
});

describe("GET /api/connections/callback/<state>", () => {
  it("reports a denied consent and activates nothing", async () => {
    const member = await fw.callerFor("member@acme.test");
    const started = await member.connections.start({ app: "codehost", mode: "redirect", returnTo: "/connections" });
    const page = await callback(await consent(started.authorizationUrl, { deny: true }));
    expect(page.message).toMatchObject({ app: "codehost", status: "error", message: expect.stringContaining("access_denied") });
    expect(page.mode).toBe("redirect");
    expect(page.returnUrl).toBe("/connections?connected=codehost&connection_status=error");
    // The platform keeps the refused attempt as a connection in error, shown until it is removed.
    expect((await member.connections.list()).find((app) => app.slug === "codehost")!.status).toBe("error");
    await member.connections.disconnect({ app: "codehost" });
  });

  it("completes nothing in another person's browser: a popup hands the grant to its opener, a redirect refuses", async () => {
    const member = await fw.callerFor("member@acme.test");
    // Someone sends the member's authorization URL to the admin, who consents in their own browser.
    const started = await member.connections.start({ app: "codehost" });
    const elsewhere = await callback(await consent(started.authorizationUrl), "admin@acme.test");
    expect(elsewhere.message).toEqual({ type: "inlay:connection", app: "codehost", status: "authorized", connectionId: started.connectionId });
    expect((await member.connections.list()).find((app) => app.slug === "codehost")!.status).toBe("not_connected"); // the platform lists no connection until it is completed
    // The admin's own credentials cannot complete it: it is not their end-user's connection.
    const admin = await fw.callerFor("admin@acme.test");
    expect(await codeOf(admin.connections.complete({ app: "codehost", connectionId: started.connectionId }))).toBe("NOT_FOUND");

    const redirected = await member.connections.start({ app: "codehost", mode: "redirect" });
    const refused = await callback(await consent(redirected.authorizationUrl), null);
    expect(refused.message).toMatchObject({ status: "error", message: "Sign in as the person who started connecting, then connect again." });
    await member.connections.disconnect({ app: "codehost" });
  });

  it("without a session (the embed's popup), the opener completes the connection with its own credentials", async () => {
    const member = await fw.callerFor("member@acme.test");
    const started = await member.connections.start({ app: "codehost" });
    const page = await callback(await consent(started.authorizationUrl), null);
    expect(page.message).toMatchObject({ status: "authorized", connectionId: started.connectionId });
    expect(page.html).toContain("Finishing in the window you started from");
    expect(await member.connections.complete({ app: "codehost", connectionId: page.message.connectionId! })).toMatchObject({ app: "codehost" });
    expect((await member.connections.list()).find((app) => app.slug === "codehost")!.status).toBe("connected");
    await member.connections.disconnect({ app: "codehost" });
  });

  it("tells a vendor's page that opened the popup (the state's opener), and only that origin", async () => {
    const member = await fw.callerFor("member@acme.test");
    const started = await member.connections.start({ app: "codehost" });
    const plain = await callback(await consent(started.authorizationUrl), null);
    expect(plain.opener).toBeUndefined();
    await member.connections.complete({ app: "codehost", connectionId: plain.message.connectionId! });
    await member.connections.disconnect({ app: "codehost" });

    const state = await signConnectionState({
      tenantId: await tenantId("acme"),
      userId: await userId("member@acme.test"),
      app: "codehost",
      returnTo: "/connections",
      mode: "popup",
      opener: "https://shop.acme.test",
    });
    const page = await callback(`http://localhost:3000/api/connections/callback/${state}?app=codehost&status=error&error_description=denied`);
    expect(page.opener).toBe("https://shop.acme.test");
    expect(page.html).toContain("data.opener||location.origin");
  });

  it("refuses a forged or tampered state", async () => {
    const forged = await signConnectionState(
      { tenantId: await tenantId("acme"), userId: await userId("member@acme.test"), app: "codehost", returnTo: "/", mode: "popup" },
      { secret: "not-the-server-secret" },
    );
    const page = await callback(`http://localhost:3000/api/connections/callback/${forged}?connection_id=conn_x&app=codehost&status=authorized`);
    expect(page.message).toMatchObject({ status: "error" });
    expect(page.message.message).toMatch(/expired or is not valid/);
    expect(page.returnUrl).toBe("/connections?connected=codehost&connection_status=error");
  });

  it("never redirects off-site, even with a signed state that names another origin", async () => {
    for (const returnTo of ["https://evil.test/x", "//evil.test", "/\\evil.test", "/\t/evil.test", "javascript:alert(1)"]) {
      const state = await signConnectionState({
        tenantId: await tenantId("acme"),
        userId: await userId("member@acme.test"),
        app: "codehost",
        returnTo,
        mode: "redirect",
      });
      const page = await callback(`http://localhost:3000/api/connections/callback/${state}?app=codehost&status=error`);
      expect(page.returnUrl).toBe("/connections?connected=codehost&connection_status=error");
      expect(page.html).not.toContain("evil.test");
    }
  });

  it("refuses a state for another app, or for someone no longer a member", async () => {
    const member = await fw.callerFor("member@acme.test");
    const started = await member.connections.start({ app: "codehost" });
    const back = new URL(await consent(started.authorizationUrl));
    back.searchParams.set("app", "mail");
    expect((await callback(back.toString())).message).toMatchObject({ status: "error", message: "The answer was for another app." });

    const state = await signConnectionState({
      tenantId: await tenantId("globex"),
      userId: await userId("member@acme.test"),
      app: "codehost",
      returnTo: "/connections",
      mode: "popup",
    });
    const page = await callback(`http://localhost:3000/api/connections/callback/${state}?connection_id=conn_x&app=codehost&status=authorized`);
    expect(page.message).toMatchObject({ status: "error", message: "You are no longer a member of this workspace." });
  });

  it("escapes what the platform sends back", async () => {
    const member = await fw.callerFor("member@acme.test");
    const started = await member.connections.start({ app: "codehost" });
    const back = new URL(await consent(started.authorizationUrl, { deny: true }));
    back.searchParams.set("error_description", "</script><script>alert(1)</script>");
    const page = await callback(back.toString());
    expect(page.html).not.toContain("<script>alert(1)");
    expect(page.message.message).toBe("</script><script>alert(1)</script>");
  });
});

describe("a member's run that needs the code host", () => {
  it("pauses for the connection and goes on by itself once the member connects through the router and the callback", async () => {
    const admin = await fw.callerFor("admin@acme.test");
    await admin.connections.setTenantApp({ app: "codehost", enabled: true });
    const agent = await admin.agents.create({
      scope: "tenant",
      agent: { name: "Coder", instructions: "Work with code.", model: null, permissionMode: "autonomous", tools: [] },
    });
    const member = await fw.callerFor("member@acme.test");
    await member.connections.disconnect({ app: "codehost" });
    oauth.signInAs("max-gh");

    const run = await member.runs.create({ agentId: agent.id, message: "::tool codehost__list_repos {}" });
    await expect.poll(async () => (await member.runs.get({ runId: run.id })).status, { timeout: 20_000, interval: 50 }).toBe("awaiting_approval");
    expect(await member.runs.permissions({ runId: run.id })).toEqual([
      expect.objectContaining({ kind: "connection", app: "codehost", tool_name: "codehost__list_repos" }),
    ]);
    expect(codehost.calls.filter((call) => call.accountId === "max-gh")).toHaveLength(0);

    const started = await member.connections.start({ app: "codehost", returnTo: `/agents/${agent.id}/chat` });
    const page = await callback(await consent(started.authorizationUrl));
    expect(page.message).toMatchObject({ app: "codehost", status: "connected" });

    await expect.poll(async () => (await member.runs.get({ runId: run.id })).status, { timeout: 20_000, interval: 50 }).toBe("completed");
    expect((await member.runs.get({ runId: run.id })).output).toContain("max-gh/hello-world");
    expect(codehost.calls.filter((call) => call.accountId === "max-gh" && call.path === "/user/repos")).toHaveLength(1);
    oauth.signInAs("octocat");
    await member.connections.disconnect({ app: "codehost" });
  });
});
