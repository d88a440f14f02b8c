// Custom tool servers end to end, with nothing faked but the far side: /mcp-servers over HTTP, the
// real MCP client against a loopback MCP server (streamable HTTP on Hono, and legacy HTTP+SSE), the
// real tool-server OAuth against a loopback authorization server (dynamic registration, resource
// indicators), and the real Pyodide sandbox, all reached by `sim` runs (`::tool NAME {...}`).
// One platform for the file: the sandbox's interpreter takes seconds to start.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { closeOutboundAgents } from "@/server/platform/outbound/guarded-fetch";
import { startMcpServer, type McpTestServer } from "../../helpers/mcp-server";
import { startOAuthServer, type OAuthServer } from "../../helpers/oauth-server";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";
import { startRestFake, type RestFake } from "../../helpers/tool-server-fakes";

const SCRIPT_TIMEOUT_MS = 3_000;
const MCP_SCOPES = ["mcp:tools"];

let platform: PlatformHarness;
let mcp: McpTestServer;
let guarded: McpTestServer;
let oauth: OAuthServer;
let rest: RestFake;
/** Not strict: account-level servers without user_id. */
let account: Account;
let stranger: Account;

beforeAll(async () => {
  rest = await startRestFake();
  mcp = await startMcpServer();
  oauth = await startOAuthServer({ dynamicRegistration: true, resourceIndicators: { scopes: MCP_SCOPES } });
  guarded = await startMcpServer();
  guarded.protect({
    authorizationServer: oauth.issuer,
    scopes: MCP_SCOPES,
    // As a resource server should: a live token issued for this resource.
    verify: async (token) => (await oauth.validAccessToken(token))?.audience === guarded.resource,
  });
  platform = await startPlatform({ scripts: { timeoutMs: SCRIPT_TIMEOUT_MS, poolSize: 1 } });
  // The platform's clients register themselves (RFC 7591); the provider needs a static client to start.
  oauth.register([`${platform.baseUrl}/mcp-servers/oauth/callback`]);
  account = await platform.signup();
  stranger = await platform.signup();
  for (const { key } of [account, stranger]) {
    const off = await platform.call("/settings", { key, method: "PATCH", body: { require_end_user_id: false } });
    expect(off.status).toBe(200);
  }
});

let platformClosed = false;

afterAll(async () => {
  if (!platformClosed) await platform?.close();
  await Promise.all([mcp?.close(), guarded?.close(), oauth?.close(), rest?.close()]);
  await closeOutboundAgents();
});

// --- Helpers --------------------------------------------------------------------------------------

const scoped = (userId?: string) => (userId ? { user_id: userId } : {});

async function create(body: Record<string, unknown>, options: { userId?: string; key?: string } = {}) {
  const response = await platform.call("/mcp-servers", { key: options.key ?? account.key, query: scoped(options.userId), body });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body as { id: number; tools: { name: string; run_name: string }[] };
}

const approveCall = (id: number, userId?: string, key = account.key) => platform.call(`/mcp-servers/${id}/approve`, { key, method: "POST", query: scoped(userId) });

async function approve(id: number, userId?: string) {
  const response = await approveCall(id, userId);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

async function agentFor(userId: string, mode: "autonomous" | "approval" = "autonomous", key = account.key) {
  const response = await platform.call("/agents", { key, body: { name: `Agent ${mode}`, instructions: "Use tools.", user_id: userId, default_permission_mode: mode } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.id as number;
}

async function startRun(userId: string, message: string, options: { mode?: "autonomous" | "approval"; key?: string } = {}) {
  const key = options.key ?? account.key;
  const agent = await agentFor(userId, options.mode, key);
  const response = await platform.call("/runs", { key, query: { user_id: userId }, body: { teammate_id: agent, stream: false, message } });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.id as number;
}

async function settled(runId: number, userId: string, options: { key?: string; statuses?: string[]; timeout?: number } = {}) {
  const key = options.key ?? account.key;
  const statuses = options.statuses ?? ["completed", "failed", "awaiting_approval"];
  const get = async () => (await platform.call(`/runs/${runId}`, { key, query: { user_id: userId } })).body;
  await expect.poll(async () => (await get()).status, { timeout: options.timeout ?? 20_000, interval: 50 }).toSatisfy((status: string) => statuses.includes(status));
  return get();
}

/** Runs the message for the end-user to its end; the run must complete (a tool's failure does not fail it). */
async function completed(userId: string, message: string, options: { key?: string; timeout?: number } = {}) {
  const run = await settled(await startRun(userId, message, { key: options.key }), userId, { key: options.key, timeout: options.timeout, statuses: ["completed", "failed"] });
  expect(run.status, JSON.stringify(run)).toBe("completed");
  return run.output as string;
}

/**
 * Runs `fn` with the clock `ms` ahead (Date.now, as the platform and the authorization server read
 * it), so a test of an expiry waits for nothing.
 */
async function later<T>(ms: number, fn: () => Promise<T>): Promise<T> {
  const realNow = Date.now.bind(Date);
  const clock = vi.spyOn(Date, "now").mockImplementation(() => realNow() + ms);
  try {
    return await fn();
  } finally {
    clock.mockRestore();
  }
}

const tool = (server: { id: number }, name: string, args: Record<string, unknown> = {}) => `::tool srv${server.id}__${name} ${JSON.stringify(args)}`;

// --- Remote MCP servers ---------------------------------------------------------------------------

describe("mcp_http and mcp_sse servers in runs", () => {
  let http: { id: number };

  beforeAll(async () => {
    http = await create({ name: "Loopback MCP", url: mcp.url, kind: "mcp_http" });
  });

  it("approve lists the server's real tools, and GET shows them with their run names", async () => {
    const approved = await approve(http.id);
    expect(approved.status).toBe("approved");
    const shown = await platform.call(`/mcp-servers/${http.id}`, { key: account.key });
    expect(shown.body.tools).toEqual(
      expect.arrayContaining([
        { name: "echo", run_name: `srv${http.id}__echo`, description: "Echoes the text back." },
        { name: "add", run_name: `srv${http.id}__add`, description: "Adds two numbers." },
        { name: "fail", run_name: `srv${http.id}__fail`, description: "Always fails (isError)." },
      ]),
    );
  });

  it("a run calls echo and add and reads a failing tool's error, then goes on", async () => {
    const before = { ...mcp.calls };
    const output = await completed("alice", [tool(http, "echo", { text: "hi" }), tool(http, "add", { a: 2, b: 40 }), tool(http, "fail")].join("\n"));
    expect(output).toContain(`Tool srv${http.id}__echo returned {"data":"hi"}`);
    expect(output).toContain(`Tool srv${http.id}__add returned {"data":{"sum":42}}`);
    expect(output).toContain(`Tool srv${http.id}__fail failed: the tool failed on purpose`);
    expect(mcp.calls).toMatchObject({ echo: (before.echo ?? 0) + 1, add: (before.add ?? 0) + 1, fail: (before.fail ?? 0) + 1 });
  });

  it("an mcp_sse server works the same over the legacy transport", async () => {
    const sse = await create({ name: "Legacy MCP", url: mcp.sseUrl, kind: "mcp_sse" });
    await approve(sse.id);
    // The call is a POST to the legacy transport's /messages (on the stream approve opened, or a new one).
    const messages = () => mcp.requests.filter((request) => request.method === "POST" && request.path.startsWith("/messages")).length;
    const streamable = () => mcp.requests.filter((request) => request.path === "/mcp").length;
    const before = messages();
    const streamableBefore = streamable();
    const output = await completed("alice", tool(sse, "echo", { text: "over sse" }));
    expect(output).toContain(`Tool srv${sse.id}__echo returned {"data":"over sse"}`);
    expect(messages()).toBeGreaterThan(before);
    expect(streamable()).toBe(streamableBefore);
  });

  it("approval mode pauses a call; allow makes it, deny declines it without calling", async () => {
    const before = mcp.calls.echo ?? 0;
    const runId = await startRun("carol", tool(http, "echo", { text: "may I" }), { mode: "approval" });
    expect((await settled(runId, "carol")).status).toBe("awaiting_approval");
    expect(mcp.calls.echo ?? 0).toBe(before);
    const [request] = (await platform.call(`/runs/${runId}/permissions`, { key: account.key, query: { user_id: "carol" } })).body.data;
    expect(request).toMatchObject({ kind: "tool", tool_name: `srv${http.id}__echo`, status: "pending" });
    const allowed = await platform.call(`/runs/${runId}/approve`, { key: account.key, query: { user_id: "carol" }, body: { request_id: request.request_id, decision: "allow" } });
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(200);
    const done = await settled(runId, "carol", { statuses: ["completed", "failed"] });
    expect(done.status).toBe("completed");
    expect(done.output).toContain(`Tool srv${http.id}__echo returned {"data":"may I"}`);
    expect(mcp.calls.echo).toBe(before + 1);

    const denyId = await startRun("carol", tool(http, "echo", { text: "no" }), { mode: "approval" });
    expect((await settled(denyId, "carol")).status).toBe("awaiting_approval");
    const [pending] = (await platform.call(`/runs/${denyId}/permissions`, { key: account.key, query: { user_id: "carol" } })).body.data;
    const denied = await platform.call(`/runs/${denyId}/approve`, { key: account.key, query: { user_id: "carol" }, body: { request_id: pending.request_id, decision: "deny" } });
    expect(denied.status, JSON.stringify(denied.body)).toBe(200);
    const declined = await settled(denyId, "carol", { statuses: ["completed", "failed"] });
    expect(declined.status).toBe("completed");
    expect(declined.output).toContain(`Tool srv${http.id}__echo was denied`);
    expect(mcp.calls.echo).toBe(before + 1);
  });

  it("auto_approve lets an approval-mode run call the server's tools at once", async () => {
    const trusted = await create({ name: "Trusted MCP", url: mcp.url, kind: "mcp_http", auto_approve: true });
    await approve(trusted.id);
    const run = await settled(await startRun("carol", tool(trusted, "echo", { text: "trusted" }), { mode: "approval" }), "carol");
    expect(run.status).toBe("completed");
    expect(run.output).toContain(`Tool srv${trusted.id}__echo returned {"data":"trusted"}`);
  });

  it("an end-user's server is invisible to other end-users and accounts, and not offered to their runs", async () => {
    const own = await create({ name: "Dana's MCP", url: mcp.url, kind: "mcp_http" }, { userId: "dana" });
    await approve(own.id, "dana");
    for (const [key, userId] of [[account.key, "erin"], [account.key, undefined], [stranger.key, "dana"]] as const) {
      expect((await platform.call(`/mcp-servers/${own.id}`, { key, query: scoped(userId) })).status).toBe(404);
      expect((await approveCall(own.id, userId, key)).status).toBe(404);
    }
    const before = mcp.calls.echo ?? 0;
    for (const [key, userId] of [[account.key, "erin"], [stranger.key, "dana"]] as const) {
      const output = await completed(userId, tool(own, "echo", { text: "borrowed" }), { key });
      expect(output).not.toContain("borrowed\"}");
    }
    // Nor is an account-level server offered to another account's runs.
    expect(await completed("dana", tool(http, "echo", { text: "foreign" }), { key: stranger.key })).not.toContain("foreign\"}");
    expect(mcp.calls.echo ?? 0).toBe(before);
    expect(await completed("dana", tool(own, "echo", { text: "mine" }))).toContain(`Tool srv${own.id}__echo returned {"data":"mine"}`);
    expect(mcp.calls.echo).toBe(before + 1);
  });
});

// --- An MCP server protected by OAuth -------------------------------------------------------------

describe("an MCP server asking for OAuth", () => {
  let server: { id: number };
  const callback = () => `${platform.baseUrl}/mcp-servers/oauth/callback`;

  /** oauth/start for the scope, then the person signs in and consents in the browser; the redirect's URL. */
  async function authorize(userId: string | undefined, signInAs: string, target = server) {
    const started = await platform.call(`/mcp-servers/${target.id}/oauth/start`, { key: account.key, method: "POST", query: scoped(userId) });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect(started.body.redirect_uri).toBe(callback());
    const url = new URL(started.body.authorization_url);
    expect(url.searchParams.get("resource")).toBe(guarded.resource);
    oauth.signInAs(signInAs);
    const landed = await oauth.authorize(started.body.authorization_url, callback());
    expect(landed.searchParams.get("state")).toBe(started.body.state);
    return landed;
  }

  /** The identity behind the bearer token of the last tool call the MCP server received. */
  async function lastCaller() {
    const posts = guarded.requests.filter((request) => request.method === "POST" && request.path === "/mcp" && request.headers.authorization);
    const token = posts.at(-1)!.headers.authorization!.replace(/^Bearer /, "");
    return (await oauth.validAccessToken(token))?.accountId;
  }

  beforeAll(async () => {
    server = await create({ name: "Guarded MCP", url: guarded.url, kind: "mcp_http", auth_type: "oauth2" });
  });

  it("approve before any grant answers 409 oauth_required", async () => {
    const refused = await approveCall(server.id);
    expect(refused.status, JSON.stringify(refused.body)).toBe(409);
    expect(refused.body.error.error_code).toBe("oauth_required");
  });

  it("the account connects through oauth/complete, then approve lists the tools with that grant", async () => {
    const landed = await authorize(undefined, "vendor-admin");
    const completed = await platform.call(`/mcp-servers/${server.id}/oauth/complete`, {
      key: account.key,
      body: { code: landed.searchParams.get("code"), state: landed.searchParams.get("state") },
    });
    expect(completed.status, JSON.stringify(completed.body)).toBe(200);
    expect(completed.body).toMatchObject({ server_id: server.id, user_id: null, connected: true });
    // Registered once, dynamically, with the platform's callback.
    expect(oauth.registrations.at(-1)!.redirectUris).toEqual([callback()]);
    const approved = await approve(server.id);
    expect(approved.tools.map((entry: { name: string }) => entry.name)).toContain("echo");
    expect(await lastCaller()).toBe("vendor-admin");
  });

  it("an end-user connects through the platform's callback page; their runs call with their token, another end-user is told to connect", async () => {
    const landed = await authorize("alice", "alice-at-idp");
    const page = await platform.request(`${landed.pathname.replace(/^\/api\/v2/, "")}${landed.search}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Connected");

    const before = guarded.calls.echo ?? 0;
    expect(await completed("alice", tool(server, "echo", { text: "as alice" }))).toContain(`Tool srv${server.id}__echo returned {"data":"as alice"}`);
    expect(guarded.calls.echo).toBe(before + 1);
    expect(await lastCaller()).toBe("alice-at-idp");

    const bob = await completed("bob", tool(server, "echo", { text: "as bob" }));
    expect(bob).toContain(`Tool srv${server.id}__echo failed: Guarded MCP needs this person's authorization`);
    expect(bob).toContain(`/mcp-servers/${server.id}/oauth/start`);
    expect(guarded.calls.echo).toBe(before + 1);
  });

  it("uses a registered client with the token_endpoint_auth_method auth_config names", async () => {
    const registrations = oauth.registrations.length;
    const client = (method: string) => ({
      name: `Registered ${method}`,
      url: guarded.url,
      kind: "mcp_http",
      auth_type: "oauth2",
      secret: oauth.client.clientSecret,
      auth_config: { client_id: oauth.client.clientId, token_endpoint_auth_method: method },
    });
    // The tests' client must authenticate with its secret: "none" sends no secret and is refused at the code exchange.
    const none = await create(client("none"), { userId: "hank" });
    expect(none).toMatchObject({ auth_config: { client_id: oauth.client.clientId, token_endpoint_auth_method: "none" } });
    const refused = await authorize("hank", "hank-at-idp", none);
    const page = await platform.request(`${refused.pathname.replace(/^\/api\/v2/, "")}${refused.search}`);
    expect(page.status).toBe(400);
    expect(await page.text()).toContain("the authorization server refused it");

    const post = await create(client("client_secret_post"), { userId: "hank" });
    const landed = await authorize("hank", "hank-at-idp", post);
    expect((await platform.request(`${landed.pathname.replace(/^\/api\/v2/, "")}${landed.search}`)).status).toBe(200);
    await approve(post.id, "hank");
    expect(await completed("hank", tool(post, "echo", { text: "registered" }))).toContain(`Tool srv${post.id}__echo returned {"data":"registered"}`);
    expect(await lastCaller()).toBe("hank-at-idp");
    expect(oauth.registrations).toHaveLength(registrations);
  });

  it("refreshes an end-user's token that is about to expire, keeping the rotated refresh token", async () => {
    // Tokens that live less than the platform's refresh margin: every call refreshes first.
    oauth.setAccessTokenTtl(30);
    try {
      const landed = await authorize("gina", "gina-at-idp");
      expect((await platform.request(`${landed.pathname.replace(/^\/api\/v2/, "")}${landed.search}`)).status).toBe(200);
      const refreshes = oauth.grants.refresh_token ?? 0;
      for (const text of ["first", "second"]) {
        expect(await completed("gina", tool(server, "echo", { text }))).toContain(`returned {"data":"${text}"}`);
        expect(await lastCaller()).toBe("gina-at-idp");
      }
      // The second refresh used the token the first one rotated in.
      expect(oauth.grants.refresh_token).toBe(refreshes + 2);
      expect(oauth.grantErrors.filter((error) => error.grantType === "refresh_token")).toEqual([]);
    } finally {
      oauth.setAccessTokenTtl(3600);
    }
  });

  it("without a refresh token, a 60 s access token is used until it expires: a call 15 s after connecting works, one after its expiry asks to connect again", async () => {
    oauth.setAccessTokenTtl(60);
    oauth.setRefreshTokens("never");
    try {
      const landed = await authorize("ivy", "ivy-at-idp");
      expect((await platform.request(`${landed.pathname.replace(/^\/api\/v2/, "")}${landed.search}`)).status).toBe(200);
      const before = guarded.calls.echo ?? 0;
      const refreshes = oauth.grants.refresh_token ?? 0;

      const inTime = await later(15_000, () => completed("ivy", tool(server, "echo", { text: "15 s later" })));
      expect(inTime).toContain(`Tool srv${server.id}__echo returned {"data":"15 s later"}`);
      expect(guarded.calls.echo).toBe(before + 1);
      expect(await lastCaller()).toBe("ivy-at-idp");

      const tooLate = await later(61_000, () => completed("ivy", tool(server, "echo", { text: "too late" })));
      expect(tooLate).toContain(`Tool srv${server.id}__echo failed: Guarded MCP: the authorization expired; connect it first: POST /mcp-servers/${server.id}/oauth/start`);
      expect(guarded.calls.echo).toBe(before + 1);
      expect(oauth.grants.refresh_token ?? 0).toBe(refreshes);
    } finally {
      oauth.setAccessTokenTtl(3600);
      oauth.setRefreshTokens("always");
    }
  });
});

// --- Scripts in the real sandbox ------------------------------------------------------------------

describe("script servers in the real sandbox", { timeout: 120_000 }, () => {
  let tools: { id: number };
  let hostile: { id: number };

  const toolsScript = () =>
    [
      "def weather(city):",
      `    answer = http.get(${JSON.stringify(rest.url("/v1/weather/"))} + city, params={"units": "kelvin"})`,
      "    answer.raise_for_status()",
      "    return answer.json()",
      "",
      "def shout(text, times=1):",
      "    return {'loud': ' '.join([text.upper()] * times)}",
      "",
    ].join("\n");

  const HOSTILE = [
    "def spin():",
    "    while True:",
    "        pass",
    "",
    // 10 MB at a time: it reaches the memory limit well within the 3 s limit on a loaded machine too.
    "def bomb():",
    "    hoard = []",
    "    while True:",
    "        hoard.append('x' * 10**7)",
    "",
    "def shell():",
    "    import os",
    "    return os.listdir('/')",
    "",
    "def spawn():",
    "    import subprocess",
    "    return subprocess.run(['id'])",
    "",
    "def passwd():",
    "    return open('/etc/passwd').read()",
    "",
    "def offsite():",
    "    return http.get('https://example.com/').status",
    "",
    "def private():",
    "    return http.get('http://10.0.0.5/latest').status",
    "",
    "def huge():",
    "    return 'x' * 200000",
    "",
    "def fine():",
    "    return 'still here'",
    "",
  ].join("\n");
  const HOSTILE_TOOLS = ["spin", "bomb", "shell", "spawn", "passwd", "offsite", "private", "huge", "fine"];

  beforeAll(async () => {
    tools = await create({ name: "Script tools", url: rest.url("/v1"), kind: "script", tool_defs: ["weather", "shout"], script_source: toolsScript() });
    hostile = await create({ name: "Hostile", url: rest.url(), kind: "script", tool_defs: HOSTILE_TOOLS, script_source: HOSTILE, auto_approve: true });
    await approve(hostile.id);
  });

  it("create and PATCH run the real check: a tool the script does not define is refused with 422", async () => {
    const body = { name: "Half", url: rest.url("/v1"), kind: "script", tool_defs: ["weather", "shout", "missing"], script_source: toolsScript() };
    const refused = await platform.call("/mcp-servers", { key: account.key, body });
    expect(refused.status, JSON.stringify(refused.body)).toBe(422);
    expect(refused.body.error.error_code).toBe("tool_server_invalid_script");
    expect(refused.body.error.message).toContain("missing");
    const widened = await platform.call(`/mcp-servers/${tools.id}`, { key: account.key, method: "PATCH", body: { tool_defs: ["weather", "shout", "missing"] } });
    expect(widened.status, JSON.stringify(widened.body)).toBe(422);
    expect(widened.body.error.error_code).toBe("tool_server_invalid_script");
    expect((await approve(tools.id)).status).toBe("approved");
  });

  it("a run calls a function that fetches from the server's origin and a pure one", async () => {
    const before = rest.calls.length;
    const output = await completed("alice", [tool(tools, "weather", { city: "Oslo" }), tool(tools, "shout", { text: "hey", times: 2 })].join("\n"), { timeout: 60_000 });
    expect(output).toContain(`Tool srv${tools.id}__weather returned {"data":{"city":"Oslo","temperature":21,"units":"kelvin"}}`);
    expect(output).toContain(`Tool srv${tools.id}__shout returned {"data":{"loud":"HEY HEY"}}`);
    expect(rest.calls.slice(before)).toEqual([expect.objectContaining({ method: "GET", path: "/v1/weather/Oslo", query: { units: "kelvin" } })]);
  });

  it.each([
    ["an endless loop", "spin", `TimeoutError: the script ran longer than ${SCRIPT_TIMEOUT_MS} ms`],
    ["a memory bomb", "bomb", "MemoryError: the script exceeded its memory limit"],
    ["import os", "shell", "ImportError: import of 'os' is not allowed in script tools (line 11)"],
    ["import subprocess", "spawn", "ImportError: import of 'subprocess' is not allowed in script tools (line 15)"],
    ["reading /etc/passwd", "passwd", "NameError: name 'open' is not defined (line 19)"],
    ["http to an origin not allowed", "offsite", "PermissionError: https://example.com is not among the origins this script may call (line 22)"],
    ["http to a private address (not among its origins)", "private", "PermissionError: http://10.0.0.5 is not among the origins this script may call (line 25)"],
    ["a huge result", "huge", "ResultTooLarge: the result is 200002 bytes"],
  ])("contains %s as the tool's error; the run completes and the next call works", async (_case, name, error) => {
    const before = rest.calls.length;
    const output = await completed("mallory", `${tool(hostile, name)}\n${tool(hostile, "fine")}`, { timeout: 60_000 });
    expect(output).toContain(`Tool srv${hostile.id}__${name} failed: ${error}`);
    expect(output).toContain(`Tool srv${hostile.id}__fine returned {"data":"still here"}`);
    expect(rest.calls.length).toBe(before);
  });

  it("after the hostile corpus, the next run still works", async () => {
    const output = await completed("alice", tool(tools, "shout", { text: "after" }), { timeout: 60_000 });
    expect(output).toContain(`Tool srv${tools.id}__shout returned {"data":{"loud":"AFTER"}}`);
  });

  it("a script server is account-level: another account's runs are not offered its tools", async () => {
    const output = await completed("alice", tool(tools, "shout", { text: "foreign" }), { key: stranger.key });
    expect(output).not.toContain("FOREIGN");
    expect((await platform.call(`/mcp-servers/${tools.id}`, { key: stranger.key })).status).toBe(404);
  });
});

// Last: it closes the file's platform.
describe("shutdown", () => {
  it("closing the platform ends the MCP sessions its runs kept open", async () => {
    // A session opened now: the ones of earlier tests may have been closed as idle on a slow machine.
    const server = await create({ name: "Open at shutdown", url: mcp.url, kind: "mcp_http" });
    await approve(server.id);
    expect(await completed("shutdown-user", tool(server, "echo", { text: "still here" }))).toContain("still here");
    expect(mcp.sessionCount()).toBeGreaterThan(0);
    const guardedOpen = guarded.sessionIds();
    platformClosed = true;
    await platform.close();
    expect(mcp.sessionCount()).toBe(0);
    // The guarded server refuses the DELETE of a session whose token has expired meanwhile (tokens of
    // the refresh test live 30 s, shorter than this file on a loaded machine): each was asked to end.
    const ended = guarded.requests.filter((request) => request.method === "DELETE").map((request) => request.headers["mcp-session-id"]);
    expect(ended).toEqual(expect.arrayContaining(guardedOpen));
  });
});
