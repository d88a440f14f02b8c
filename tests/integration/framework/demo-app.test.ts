// The development demo app (server/framework/demo-app): its OAuth provider on its own (consent with PKCE and
// state, code exchange, refresh with rotation, the notes API, refusal of wrong, expired and revoked
// tokens), then the whole connection through the embedded platform with outbound loopback NOT allowed
// (only the installation's own demo app may use it): connect, a run's tool call on the member's notes,
// a refresh after the app refuses the token, and disconnect (revoked at the app). And its absence
// outside development: routes answer 404, the catalogue lacks it.
import { createHash, randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEnv } from "@/lib/env";
import { offerDemoAppToDemoTenants } from "@/prisma/seed";
import { handleConnectionCallback } from "@/server/framework/connections/callback";
import * as demo from "@/server/framework/demo-app/demo-app";
import { createAppCatalog } from "@/server/platform/apps/catalog";
import { DEMO_APP_CLIENT_ID, DEMO_APP_SLUG, demoAppClientSecret } from "@/server/platform/apps/definitions/demo-notes";
import { startFramework, type FrameworkHarness } from "../../helpers/framework";

const ORIGIN = "http://localhost:3000";
const PLATFORM_CALLBACK = `${ORIGIN}/api/v2/apps/oauth/callback`;
const SECRET = "demo-app-test-secret";
const CLIENT_SECRET = demoAppClientSecret(SECRET);

let fw: FrameworkHarness;
let server: Server;
let base = "";
/** Who is signed in to the demo app's pages (the framework's session), per test. */
let signedIn: demo.DemoAppUser | null = null;

const deps = (): demo.DemoAppDeps => ({
  enabled: true,
  prisma: fw.database.prisma,
  origin: base,
  redirectOrigins: [ORIGIN],
  secret: SECRET,
  user: async () => signedIn,
});

/** The app's routes (app/demo-app/**) by method and path. */
function route(request: Request): Promise<Response> {
  const { pathname } = new URL(request.url);
  const table: Record<string, (request: Request, deps: demo.DemoAppDeps) => Promise<Response>> = {
    "GET /demo-app/oauth/authorize": demo.authorizePage,
    "POST /demo-app/oauth/authorize": demo.authorizeDecision,
    "POST /demo-app/oauth/token": demo.tokenEndpoint,
    "POST /demo-app/oauth/revoke": demo.revokeEndpoint,
    "GET /demo-app/api/me": demo.meEndpoint,
    "GET /demo-app/api/notes": demo.listNotesEndpoint,
    "POST /demo-app/api/notes": demo.createNoteEndpoint,
  };
  const handler = table[`${request.method} ${pathname}`];
  return handler ? handler(request, deps()) : Promise.resolve(new Response("Not found", { status: 404 }));
}

beforeAll(async () => {
  // The app on loopback, as Next serves it in development; the platform reaches it over http.
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
      const request = new Request(`${base}${req.url}`, { method: req.method, headers: req.headers as Record<string, string>, body });
      void route(request).then(async (response) => {
        res.writeHead(response.status, Object.fromEntries(response.headers.entries()));
        res.end(Buffer.from(await response.arrayBuffer()));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fw = await startFramework({
    // As in development without OUTBOUND_ALLOW_LOOPBACK: only the demo app may be reached on loopback.
    outboundAllowLoopback: false,
    publicBaseUrl: `${ORIGIN}/api/v2`,
    apps: { demo: { baseUrl: `${base}/demo-app`, clientSecret: CLIENT_SECRET } },
  });
});
afterAll(async () => {
  await fw?.close();
  await new Promise((resolve) => server?.close(resolve));
});

const userOf = async (email: string) => {
  const user = await fw.database.prisma.user.findUniqueOrThrow({ where: { email } });
  return { id: user.id, email };
};

const pkce = () => {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
};

function authorizeUrl(params: Record<string, string>): string {
  const url = new URL(`${base}/demo-app/oauth/authorize`);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  return url.toString();
}

/** The consent page's form fields (the page as the browser gets it). */
async function consentForm(url: string): Promise<URLSearchParams> {
  const response = await fetch(url, { redirect: "manual" });
  expect(response.status).toBe(200);
  const html = await response.text();
  const fields = new URLSearchParams();
  for (const match of html.matchAll(/<input type="hidden" name="([a-z_]+)" value="([^"]*)">/g)) {
    fields.set(match[1]!, match[2]!.replace(/&amp;/g, "&").replace(/&quot;/g, '"').replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&#39;/g, "'"));
  }
  return fields;
}

async function decide(fields: URLSearchParams, decision: "allow" | "deny"): Promise<URL> {
  const form = new URLSearchParams(fields);
  form.set("decision", decision);
  const response = await fetch(`${base}/demo-app/oauth/authorize`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: base },
    body: form,
    redirect: "manual",
  });
  expect(response.status).toBe(303);
  return new URL(response.headers.get("location")!);
}

const token = (params: Record<string, string>, secret = CLIENT_SECRET) =>
  fetch(`${base}/demo-app/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ client_id: DEMO_APP_CLIENT_ID, client_secret: secret, ...params }),
  });

const api = (path: string, accessToken: string, init: RequestInit = {}) =>
  fetch(`${base}/demo-app/api${path}`, { ...init, headers: { authorization: `Bearer ${accessToken}`, "content-type": "application/json", ...init.headers } });

describe("the demo app's OAuth provider", () => {
  it("authorizes with PKCE and state after consent, exchanges the code once, calls the API, refreshes with rotation, and refuses wrong, expired and revoked tokens", async () => {
    signedIn = null;
    const { verifier, challenge } = pkce();
    const url = authorizeUrl({
      client_id: DEMO_APP_CLIENT_ID,
      response_type: "code",
      redirect_uri: PLATFORM_CALLBACK,
      state: "st-123",
      code_challenge: challenge,
      code_challenge_method: "S256",
      scope: "notes",
    });
    // Nobody signed in: to the sign-in page, back here afterwards.
    const anonymous = await fetch(url, { redirect: "manual" });
    expect(anonymous.status).toBe(303);
    const signIn = new URL(anonymous.headers.get("location")!);
    expect(signIn.pathname).toBe("/signin");
    expect(signIn.searchParams.get("callbackUrl")).toBe(`/demo-app/oauth/authorize${new URL(url).search}`);

    signedIn = await userOf("member@acme.test");
    const page = await fetch(url);
    expect(await page.text()).toContain("member@acme.test");
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(page.headers.get("referrer-policy")).toBe("same-origin");
    const fields = await consentForm(url);

    // The consent form is bound to its user: another person's session cannot send it.
    signedIn = await userOf("admin@acme.test");
    const forged = await fetch(`${base}/demo-app/oauth/authorize`, { method: "POST", body: new URLSearchParams({ ...Object.fromEntries(fields), decision: "allow" }) });
    expect(forged.status).toBe(403);
    signedIn = await userOf("member@acme.test");

    const back = await decide(fields, "allow");
    expect(back.origin + back.pathname).toBe(PLATFORM_CALLBACK);
    expect(back.searchParams.get("state")).toBe("st-123");
    const code = back.searchParams.get("code")!;
    expect(code).toMatch(/^dn_code_/);

    // Wrong client secret, wrong verifier (which uses the code up), then a code used twice.
    expect(await (await token({ grant_type: "authorization_code", code, redirect_uri: PLATFORM_CALLBACK, code_verifier: verifier }, "wrong")).json()).toMatchObject({ error: "invalid_client" });
    const wrongVerifier = await token({ grant_type: "authorization_code", code, redirect_uri: PLATFORM_CALLBACK, code_verifier: pkce().verifier });
    expect(wrongVerifier.status).toBe(400);
    expect(await wrongVerifier.json()).toMatchObject({ error: "invalid_grant" });
    expect(await (await token({ grant_type: "authorization_code", code, redirect_uri: PLATFORM_CALLBACK, code_verifier: verifier })).json()).toMatchObject({ error: "invalid_grant" });

    // A fresh code, exchanged with the right verifier.
    const second = await decide(await consentForm(url), "allow");
    const exchanged = await token({ grant_type: "authorization_code", code: second.searchParams.get("code")!, redirect_uri: PLATFORM_CALLBACK, code_verifier: verifier });
    expect(exchanged.status).toBe(200);
    const tokens = (await exchanged.json()) as { access_token: string; refresh_token: string; token_type: string; expires_in: number };
    expect(tokens).toMatchObject({ token_type: "Bearer", expires_in: 3600 });

    // Hashed at rest: no stored row holds a token or a code in plain text.
    const stored = JSON.stringify([await fw.database.prisma.demoAppToken.findMany(), await fw.database.prisma.demoAppCode.findMany()]);
    expect(stored).not.toContain(tokens.access_token);
    expect(stored).not.toContain(tokens.refresh_token);
    expect(stored).not.toContain(code);

    expect(await (await api("/me", tokens.access_token)).json()).toMatchObject({ email: "member@acme.test" });
    expect((await api("/notes", tokens.access_token, { method: "POST", body: JSON.stringify({ text: "  " }) })).status).toBe(400);
    expect((await api("/notes", tokens.access_token, { method: "POST", body: JSON.stringify({ text: "Buy milk" }) })).status).toBe(201);
    expect(await (await api("/notes", tokens.access_token)).json()).toMatchObject({ notes: [{ text: "Buy milk" }] });

    // Wrong and missing tokens; a refresh token is not an access token.
    for (const bad of ["dn_at_wrong", tokens.refresh_token]) {
      const refused = await api("/notes", bad);
      expect(refused.status).toBe(401);
      expect(refused.headers.get("www-authenticate")).toContain('error="invalid_token"');
    }
    expect((await fetch(`${base}/demo-app/api/notes`)).status).toBe(401);

    // Refresh: a new pair; the old access and refresh tokens end.
    const refreshed = (await (await token({ grant_type: "refresh_token", refresh_token: tokens.refresh_token })).json()) as typeof tokens;
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect((await api("/notes", tokens.access_token)).status).toBe(401);
    expect(await (await token({ grant_type: "refresh_token", refresh_token: tokens.refresh_token })).json()).toMatchObject({ error: "invalid_grant" });
    expect((await api("/notes", refreshed.access_token)).status).toBe(200);

    // Expired.
    await fw.database.prisma.demoAppToken.updateMany({ where: { kind: "access", revokedAt: null }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const expired = await api("/notes", refreshed.access_token);
    expect(expired.status).toBe(401);
    expect(await expired.json()).toMatchObject({ error: "invalid_token", error_description: "the access token has expired" });
  });

  it("sends a refusal back with the state, never to a redirect_uri off the platform, and insists on PKCE", async () => {
    signedIn = await userOf("member@acme.test");
    const { challenge } = pkce();
    const params = { client_id: DEMO_APP_CLIENT_ID, response_type: "code", redirect_uri: PLATFORM_CALLBACK, state: "s1", code_challenge: challenge, code_challenge_method: "S256" };
    const denied = await decide(await consentForm(authorizeUrl(params)), "deny");
    expect(Object.fromEntries(denied.searchParams)).toEqual({ state: "s1", error: "access_denied" });

    const offSite = await fetch(authorizeUrl({ ...params, redirect_uri: "http://evil.example/cb" }), { redirect: "manual" });
    expect(offSite.status).toBe(400);
    expect((await fetch(authorizeUrl({ ...params, client_id: "other" }), { redirect: "manual" })).status).toBe(400);

    const noPkce = await fetch(authorizeUrl({ ...params, code_challenge_method: "plain" }), { redirect: "manual" });
    expect(noPkce.status).toBe(303);
    expect(new URL(noPkce.headers.get("location")!).searchParams.get("error")).toBe("invalid_request");
  });
});

describe("connecting the demo app through the platform", () => {
  it("connects, lets a run create and list the member's notes, refreshes a refused token, and revokes on disconnect", async () => {
    await offerDemoAppToDemoTenants(fw.database.prisma, DEMO_APP_SLUG);
    const member = await fw.callerFor("member@acme.test");
    expect((await member.connections.list()).find((app) => app.slug === DEMO_APP_SLUG)).toMatchObject({ status: "not_connected" });

    // Tokens the first test left live: disconnecting must leave exactly these.
    const liveBefore = await fw.database.prisma.demoAppToken.count({ where: { revokedAt: null } });

    const started = await member.connections.start({ app: DEMO_APP_SLUG, returnTo: "/connections" });
    expect(started.authorizationUrl.startsWith(`${base}/demo-app/oauth/authorize?`)).toBe(true);
    signedIn = await userOf("member@acme.test");
    const atPlatform = await decide(await consentForm(started.authorizationUrl), "allow");
    const platformAnswer = await fw.app.fetch(new Request(atPlatform.toString(), { redirect: "manual" }));
    expect(platformAnswer.status).toBe(302);
    const ours = platformAnswer.headers.get("location")!;
    const callback = await handleConnectionCallback(new Request(ours), new URL(ours).pathname.split("/").pop()!, {
      prisma: fw.database.prisma,
      connect: fw.connect,
      sessionUserId: async () => signedIn!.id,
    });
    expect(await callback.text()).toContain('"status":"connected"');
    expect((await member.connections.list()).find((app) => app.slug === DEMO_APP_SLUG)).toMatchObject({ status: "connected", accountLabel: "member@acme.test" });

    const admin = await fw.callerFor("admin@acme.test");
    const agent = await admin.agents.create({
      scope: "tenant",
      agent: { name: "Note taker", instructions: "Keep notes.", model: null, permissionMode: "autonomous", tools: [] },
    });
    const runTool = async (message: string) => {
      const run = await member.runs.create({ agentId: agent.id, message });
      await expect.poll(async () => (await member.runs.get({ runId: run.id })).status, { timeout: 20_000, interval: 50 }).toBe("completed");
      return (await member.runs.get({ runId: run.id })).output ?? "";
    };
    await runTool(`::tool ${DEMO_APP_SLUG}__create_note {"text":"From the agent"}`);
    const memberId = signedIn!.id;
    expect(await fw.database.prisma.demoAppNote.findMany({ where: { userId: memberId, text: "From the agent" } })).toHaveLength(1);

    // The app refuses the access token (expired early): the platform refreshes and calls again.
    const grantsBefore = await fw.database.prisma.demoAppToken.count({ where: { userId: memberId, kind: "refresh" } });
    await fw.database.prisma.demoAppToken.updateMany({ where: { userId: memberId, kind: "access", revokedAt: null }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect(await runTool(`::tool ${DEMO_APP_SLUG}__list_notes {}`)).toContain("From the agent");
    expect(await fw.database.prisma.demoAppToken.count({ where: { userId: memberId, kind: "refresh" } })).toBe(grantsBefore + 1);

    await member.connections.disconnect({ app: DEMO_APP_SLUG });
    expect(await fw.database.prisma.demoAppToken.count({ where: { revokedAt: null } })).toBe(liveBefore);
    expect((await member.connections.list()).find((app) => app.slug === DEMO_APP_SLUG)).toMatchObject({ status: "not_connected" });
  });
});

describe("outside development", () => {
  it("is absent: no catalogue entry, no platform settings, and every route answers 404", async () => {
    const production = parseEnv({ NODE_ENV: "production", NEXTAUTH_SECRET: "a-production-secret" });
    expect(demo.demoAppEnabled(production)).toBe(false);
    expect(demo.demoAppPlatformSettings("http://localhost:3000", production)).toBeUndefined();
    expect(demo.demoAppPlatformSettings("http://localhost:3000", parseEnv({ NODE_ENV: "development" }))).toBeDefined();
    expect(createAppCatalog({}).get(DEMO_APP_SLUG)).toBeUndefined();

    const disabled = { ...deps(), enabled: false };
    const handlers = [demo.authorizePage, demo.authorizeDecision, demo.tokenEndpoint, demo.revokeEndpoint, demo.meEndpoint, demo.listNotesEndpoint, demo.createNoteEndpoint];
    for (const handler of handlers) expect((await handler(new Request(`${base}/demo-app/x`, { method: "POST", body: "" }), disabled)).status).toBe(404);
    // The Next routes themselves, in this (test) environment, which is not development.
    const { GET } = await import("@/app/demo-app/oauth/authorize/route");
    expect((await GET(new Request(`${ORIGIN}/demo-app/oauth/authorize`))).status).toBe(404);
    const notes = await import("@/app/demo-app/api/notes/route");
    expect((await notes.POST(new Request(`${ORIGIN}/demo-app/api/notes`, { method: "POST" }))).status).toBe(404);
  });
});
