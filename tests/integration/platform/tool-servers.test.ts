// Custom tool servers (/mcp-servers): registration and its checks, scopes, status and approval, and
// their tools in sim runs against a loopback REST fake (approval mode, auto_approve, end-user scope).
// Scripts run in a fake sandbox here: these tests are about the wiring, the sandbox has its own.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { saveGrant } from "@/server/platform/repositories/tool-servers";
import { sealClient, sealTokens } from "@/server/platform/services/tool-servers/tool-server-calls";
import type { ScriptCall } from "@/server/platform/tool-servers/script-sandbox";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";
import { startRestFake, type RestFake } from "../../helpers/tool-server-fakes";

let platform: PlatformHarness;
let rest: RestFake;
/** Not strict (require_end_user_id off): account-level servers without user_id. */
let account: Account;
/** Strict, as API signups are by default. */
let strict: Account;
let stranger: Account;

const checked: { source: string; names: string[] }[] = [];
const scriptCalls: ScriptCall[] = [];

const SCRIPT = "def shout(text):\n    return text.upper()\n\ndef count(items):\n    return len(items)\n";
const API_KEY = "key-0123456789-super-secret";
const script = { name: "S", url: "https://api.example.com", kind: "script", tool_defs: ["shout"], script_source: SCRIPT };

beforeAll(async () => {
  rest = await startRestFake();
  platform = await startPlatform({
    scriptSandbox: () => ({
      // Stands for the real check: every tool name is a top-level function of the source.
      check: async (source, names) => {
        checked.push({ source, names });
        const missing = names.filter((name) => !new RegExp(`^def ${name}\\(`, "m").test(source));
        return missing.length > 0 ? { ok: false, error: `the script defines no function ${missing.join(", ")}` } : { ok: true };
      },
      call: async (input) => {
        scriptCalls.push(input);
        return { ok: true, result: { tool: input.tool, args: input.args } };
      },
      close: async () => {},
    }),
  });
  account = await platform.signup();
  strict = await platform.signup();
  stranger = await platform.signup();
  for (const { key } of [account, stranger]) {
    const off = await platform.call("/settings", { key, method: "PATCH", body: { require_end_user_id: false } });
    expect(off.status).toBe(200);
  }
});

afterAll(async () => {
  await platform?.close();
  await rest?.close();
});

const restServer = (overrides: Record<string, unknown> = {}) => ({
  name: "Weather",
  url: rest.url("/v1"),
  kind: "rest_api",
  auth_type: "api_key",
  auth_config: { header: "X-Api-Key" },
  secret: API_KEY,
  tool_defs: [
    {
      name: "get_weather",
      method: "GET",
      path: "/weather/{city}",
      description: "Current weather of a city",
      parameters: { type: "object", properties: { city: { type: "string" }, units: { type: "string" } }, required: ["city"] },
    },
    { name: "add_note", method: "POST", path: "/notes", parameters: { type: "object", properties: { text: { type: "string" } } } },
    { name: "boom", method: "GET", path: "/boom" },
  ],
  ...overrides,
});

async function create(key: string, body: Record<string, unknown>, userId?: string) {
  const response = await platform.call("/mcp-servers", { key, query: userId ? { user_id: userId } : {}, body });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body;
}

async function approve(key: string, id: number, userId?: string) {
  const response = await platform.call(`/mcp-servers/${id}/approve`, { key, method: "POST", query: userId ? { user_id: userId } : {} });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

const patch = (key: string, id: number, body: Record<string, unknown>, userId?: string) =>
  platform.call(`/mcp-servers/${id}`, { key, method: "PATCH", query: userId ? { user_id: userId } : {}, body });

describe("POST /mcp-servers", () => {
  it("registers a REST server, pending, with its tools' run names and without its secret", async () => {
    const server = await create(account.key, restServer());
    expect(server).toMatchObject({
      name: "Weather",
      kind: "rest_api",
      auth_type: "api_key",
      auth_config: { header: "X-Api-Key" },
      has_secret: true,
      status: "pending",
      auto_approve: false,
      user_id: null,
      script_sha256: null,
      script_allowlist: [],
      approved_at: null,
    });
    expect(server.tools.map((tool: { run_name: string }) => tool.run_name)).toEqual([
      `srv${server.id}__get_weather`,
      `srv${server.id}__add_note`,
      `srv${server.id}__boom`,
    ]);
    expect(server).not.toHaveProperty("secret");
    expect(JSON.stringify(server)).not.toContain(API_KEY);
    const row = await platform.database.prisma.platformToolServer.findUniqueOrThrow({ where: { id: server.id } });
    expect(row.secretSealed).not.toContain(API_KEY);
  });

  it("defaults to a rest_api server with auth_type none", async () => {
    const server = await create(account.key, { name: "Bare", url: "https://api.example.com" });
    expect(server).toMatchObject({ kind: "rest_api", auth_type: "none", has_secret: false, tool_defs: [] });
  });

  it("registers a script with its SHA-256, never its source", async () => {
    const server = await create(account.key, {
      name: "Text tools",
      url: "https://api.example.com",
      kind: "script",
      tool_defs: ["shout", { name: "count", description: "Counts items" }],
      script_source: SCRIPT,
      script_allowlist: ["https://cdn.example.com", "https://cdn.example.com/", "https://other.example.org:8443"],
    });
    expect(server.script_sha256).toBe(createHash("sha256").update(SCRIPT).digest("hex"));
    expect(server.script_allowlist).toEqual(["https://cdn.example.com", "https://other.example.org:8443"]);
    expect(server).not.toHaveProperty("script_source");
    expect(JSON.stringify(server)).not.toContain("def shout");
    const row = await platform.database.prisma.platformToolServer.findUniqueOrThrow({ where: { id: server.id } });
    expect(row.scriptSourceSealed).not.toContain("def shout");
  });

  const nine = Array.from({ length: 9 }, (_, index) => `https://h${index}.example.com`);
  it.each([
    ["a missing name", { url: "https://api.example.com" }, "name"],
    ["a blank name", { name: "  ", url: "https://api.example.com" }, "name"],
    ["a name over 255 characters", { name: "n".repeat(256), url: "https://api.example.com" }, "name"],
    ["a missing url", { name: "x" }, "url"],
    ["an ftp url", { name: "x", url: "ftp://api.example.com" }, "url"],
    ["a plain http url off loopback", { name: "x", url: "http://api.example.com" }, "url"],
    ["a private address", { name: "x", url: "https://10.0.0.8/api" }, "url"],
    ["a url with a password", { name: "x", url: "https://me:pw@api.example.com" }, "url"],
    ["an unknown kind", { name: "x", url: "https://api.example.com", kind: "grpc" }, "kind"],
    ["an unknown auth_type", { name: "x", url: "https://api.example.com", auth_type: "digest" }, "auth_type"],
    ["bearer without a secret", { name: "x", url: "https://api.example.com", auth_type: "bearer" }, "secret"],
    ["api_key without a header", { name: "x", url: "https://api.example.com", auth_type: "api_key", secret: "k" }, "auth_config.header"],
    ["basic without a username", { name: "x", url: "https://api.example.com", auth_type: "basic", secret: "pw" }, "auth_config.username"],
    ["an auth_config key the type does not use", { name: "x", url: "https://api.example.com", auth_type: "bearer", secret: "t", auth_config: { header: "X" } }, "auth_config.header"],
    [
      "rest_api oauth2 without its endpoints",
      { name: "x", url: "https://api.example.com", auth_type: "oauth2", auth_config: { client_id: "c" } },
      "auth_config.authorization_url",
    ],
    ["oauth2 endpoints on an MCP server", { name: "x", url: "https://mcp.example.com", kind: "mcp_http", auth_type: "oauth2", auth_config: { token_url: "https://a.example.com/t" } }, "auth_config.token_url"],
    [
      "an unknown token_endpoint_auth_method",
      { name: "x", url: "https://mcp.example.com", kind: "mcp_http", auth_type: "oauth2", secret: "s", auth_config: { client_id: "c", token_endpoint_auth_method: "private_key_jwt" } },
      "auth_config.token_endpoint_auth_method",
    ],
    [
      "token_endpoint_auth_method for a dynamically registered MCP client",
      { name: "x", url: "https://mcp.example.com", kind: "mcp_http", auth_type: "oauth2", auth_config: { token_endpoint_auth_method: "none" } },
      "auth_config.token_endpoint_auth_method",
    ],
    [
      "token_endpoint_auth_method client_secret_post without a secret",
      { name: "x", url: "https://mcp.example.com", kind: "mcp_http", auth_type: "oauth2", auth_config: { client_id: "c", token_endpoint_auth_method: "client_secret_post" } },
      "secret",
    ],
    ["a tool with an unknown method", { name: "x", url: "https://api.example.com", tool_defs: [{ name: "t", method: "HEAD", path: "/t" }] }, "tool_defs.0.method"],
    ["a tool path without a leading slash", { name: "x", url: "https://api.example.com", tool_defs: [{ name: "t", method: "GET", path: "t" }] }, "tool_defs.0.path"],
    ["a tool name with a space", { name: "x", url: "https://api.example.com", tool_defs: [{ name: "get it", method: "GET", path: "/t" }] }, "tool_defs.0.name"],
    ["parameters that are not an object schema", { name: "x", url: "https://api.example.com", tool_defs: [{ name: "t", method: "GET", path: "/t", parameters: { type: "string" } }] }, "tool_defs.0.parameters"],
    ["a tool named twice", { name: "x", url: "https://api.example.com", tool_defs: [{ name: "t", method: "GET", path: "/a" }, { name: "t", method: "GET", path: "/b" }] }, "tool_defs"],
    ["tool_defs on an MCP server", { name: "x", url: "https://mcp.example.com", kind: "mcp_sse", tool_defs: [{ name: "t" }] }, "tool_defs"],
    ["a script tool that is not a function name", { ...script, tool_defs: ["not-python"] }, "tool_defs.0"],
    ["user_id on a script", { ...script, user_id: "alice" }, "user_id"],
    ["a script without its source", { ...script, script_source: undefined }, "script_source"],
    ["script_source on a rest_api server", { name: "x", url: "https://api.example.com", script_source: SCRIPT }, "script_source"],
    ["script_allowlist on a rest_api server", { name: "x", url: "https://api.example.com", script_allowlist: ["https://a.example.com"] }, "script_allowlist"],
    ["nine allow-listed origins", { ...script, script_allowlist: nine }, "script_allowlist"],
    ["an allow-listed URL with a path", { ...script, script_allowlist: ["https://cdn.example.com/files"] }, "script_allowlist.0"],
    ["an allow-listed http origin", { ...script, script_allowlist: ["http://cdn.example.com"] }, "script_allowlist.0"],
    ["an auth type on a script", { ...script, auth_type: "basic", auth_config: { username: "u" } }, "auth_type"],
    ["a secret on a script", { ...script, secret: "t" }, "secret"],
  ])("answers 422 naming the field for %s", async (_case, body, field) => {
    const response = await platform.call("/mcp-servers", { key: account.key, body });
    expect(response.status, JSON.stringify(response.body)).toBe(422);
    expect(response.body.error.type).toBe("validation_error");
    expect(response.body.error.message).toContain(`${field}:`);
  });

  it("refuses a script that defines no function for one of its tool names: 422 tool_server_invalid_script, nothing created", async () => {
    const before = checked.length;
    const response = await platform.call("/mcp-servers", { key: account.key, body: { ...script, name: "Half", tool_defs: ["shout", "whisper"] } });
    expect(response.status, JSON.stringify(response.body)).toBe(422);
    expect(response.body.error).toMatchObject({ type: "validation_error", error_code: "tool_server_invalid_script" });
    expect(response.body.error.message).toContain("script_source:");
    expect(response.body.error.message).toContain("whisper");
    expect(checked.slice(before)).toEqual([{ source: SCRIPT, names: ["shout", "whisper"] }]);
    expect(await platform.database.prisma.platformToolServer.count({ where: { accountId: account.id, name: "Half" } })).toBe(0);
  });

  it("needs user_id on strict accounts, except for scripts", async () => {
    const refused = await platform.call("/mcp-servers", { key: strict.key, body: restServer() });
    expect(refused.status).toBe(422);
    expect(refused.body.error.error_code).toBe("end_user_id_required");
    const listed = await platform.call("/mcp-servers", { key: strict.key });
    expect(listed.status).toBe(422);
    expect(listed.body.error.error_code).toBe("end_user_id_required");
    await create(strict.key, restServer(), "alice");
    const scriptServer = await create(strict.key, { ...script, name: "Strict script" });
    expect(scriptServer.user_id).toBeNull();
  });

  it("answers 401 without a key", async () => {
    expect((await platform.call("/mcp-servers", { body: restServer() })).status).toBe(401);
  });
});

describe("scopes", () => {
  it("shows an end-user's server only with that user_id, and no other account's", async () => {
    const own = await create(account.key, restServer({ name: "Alice's" }), "alice");
    expect(own.user_id).toBe("alice");
    const level = await create(account.key, restServer({ name: "Shared" }));
    const get = (key: string, id: number, userId?: string) => platform.call(`/mcp-servers/${id}`, { key, query: userId ? { user_id: userId } : {} });

    expect((await get(account.key, own.id, "alice")).status).toBe(200);
    for (const [key, userId] of [[account.key, "bob"], [account.key, undefined], [stranger.key, "alice"], [stranger.key, undefined]] as const) {
      expect((await get(key, own.id, userId)).status).toBe(404);
    }
    expect((await get(account.key, level.id)).status).toBe(200);
    expect((await get(account.key, level.id, "alice")).status).toBe(404);
    expect((await get(stranger.key, level.id)).status).toBe(404);

    const aliceList = await platform.call("/mcp-servers", { key: account.key, query: { user_id: "alice" } });
    expect(aliceList.body.data.map((server: { id: number }) => server.id)).toContain(own.id);
    expect(aliceList.body.data.every((server: { user_id: string }) => server.user_id === "alice")).toBe(true);
    const bobList = await platform.call("/mcp-servers", { key: account.key, query: { user_id: "bob" } });
    expect(bobList.body.data.map((server: { id: number }) => server.id)).not.toContain(own.id);
    const accountList = await platform.call("/mcp-servers", { key: account.key });
    expect(accountList.body).toMatchObject({ has_more: false });
    expect(accountList.body.data.map((server: { id: number }) => server.id)).toContain(level.id);
    expect(accountList.body.data.map((server: { id: number }) => server.id)).not.toContain(own.id);

    for (const call of [
      () => patch(account.key, own.id, { name: "Mine now" }, "bob"),
      () => platform.call(`/mcp-servers/${own.id}/approve`, { key: account.key, method: "POST", query: { user_id: "bob" } }),
      () => platform.call(`/mcp-servers/${own.id}`, { key: stranger.key, method: "DELETE", query: { user_id: "alice" } }),
      () => platform.call(`/mcp-servers/${own.id}/oauth/start`, { key: account.key, method: "POST", query: { user_id: "bob" } }),
    ]) {
      expect((await call()).status).toBe(404);
    }
    const deleted = await platform.call(`/mcp-servers/${own.id}`, { key: account.key, method: "DELETE", query: { user_id: "alice" } });
    expect(deleted.status).toBe(204);
    expect((await get(account.key, own.id, "alice")).status).toBe(404);
  });
});

describe("status and approval", () => {
  it("approves a REST server; a change to what was checked makes it pending again, a rename does not", async () => {
    const server = await create(account.key, restServer());
    const approved = await approve(account.key, server.id);
    expect(approved).toMatchObject({ status: "approved", last_error: null, approved_at: expect.any(String) });

    const renamed = await patch(account.key, server.id, { name: "Weather 2", description: "Renamed", secret: "rotated-key" });
    expect(renamed.body).toMatchObject({ status: "approved", name: "Weather 2", description: "Renamed", has_secret: true });
    expect(JSON.stringify(renamed.body)).not.toContain("rotated-key");

    const same = await patch(account.key, server.id, { url: rest.url("/v1"), tool_defs: restServer().tool_defs });
    expect(same.body.status).toBe("approved");
    const moved = await patch(account.key, server.id, { url: rest.url("/v2") });
    expect(moved.body).toMatchObject({ status: "pending", approved_at: null });
    await approve(account.key, server.id);
    const retooled = await patch(account.key, server.id, { tool_defs: [{ name: "only", method: "GET", path: "/only" }] });
    expect(retooled.body.status).toBe("pending");
  });

  it("disables and re-enables through status; approve is the only way to approved", async () => {
    const server = await create(account.key, restServer());
    await approve(account.key, server.id);
    const off = await patch(account.key, server.id, { status: "disabled" });
    expect(off.body.status).toBe("disabled");
    const refused = await platform.call(`/mcp-servers/${server.id}/approve`, { key: account.key, method: "POST" });
    expect(refused.status).toBe(409);
    expect(refused.body.error.error_code).toBe("tool_server_disabled");
    const byPatch = await patch(account.key, server.id, { status: "approved" });
    expect(byPatch.status).toBe(422);
    expect(byPatch.body.error.message).toContain("status:");
    const on = await patch(account.key, server.id, { status: "pending" });
    expect(on.body.status).toBe("pending");
    expect((await approve(account.key, server.id)).status).toBe("approved");
  });

  it("refuses to approve a REST server with no tools", async () => {
    const server = await create(account.key, { name: "Empty", url: "https://api.example.com" });
    const response = await platform.call(`/mcp-servers/${server.id}/approve`, { key: account.key, method: "POST" });
    expect(response.status).toBe(422);
    expect(response.body.error.error_code).toBe("tool_server_no_tools");
  });

  it("checks a script's functions in the sandbox on PATCH and approve, and replacing the script clears auto_approve", async () => {
    const server = await create(account.key, { ...script, name: "Checked", tool_defs: ["shout", "count"], auto_approve: true });
    expect(server.auto_approve).toBe(true);
    expect(checked.at(-1)).toEqual({ source: SCRIPT, names: ["shout", "count"] });
    await approve(account.key, server.id);
    expect(checked.at(-1)).toEqual({ source: SCRIPT, names: ["shout", "count"] });

    // A PATCH that would leave a tool without its function changes nothing.
    const shoutOnly = "def shout(text):\n    return text\n";
    for (const body of [{ script_source: shoutOnly }, { tool_defs: ["shout", "count", "whisper"] }]) {
      const refused = await patch(account.key, server.id, body);
      expect(refused.status, JSON.stringify(body)).toBe(422);
      expect(refused.body.error).toMatchObject({ error_code: "tool_server_invalid_script" });
      expect(refused.body.error.message).toMatch(/count|whisper/);
    }
    expect((await platform.call(`/mcp-servers/${server.id}`, { key: account.key })).body).toMatchObject({
      status: "approved",
      auto_approve: true,
      script_sha256: server.script_sha256,
      tool_defs: ["shout", "count"],
    });

    const replaced = await patch(account.key, server.id, { script_source: `${shoutOnly}\ndef count(items):\n    return 0\n` });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ status: "pending", auto_approve: false });
    expect(replaced.body.script_sha256).not.toBe(server.script_sha256);

    // A row stored before creation checked its script still meets the check at approve.
    await platform.database.prisma.platformToolServer.update({ where: { id: server.id }, data: { toolDefs: ["shout", "count", "legacy"] } });
    const refused = await platform.call(`/mcp-servers/${server.id}/approve`, { key: account.key, method: "POST" });
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatchObject({ error_code: "tool_server_invalid_script" });
    expect(refused.body.error.message).toContain("legacy");
    expect((await platform.call(`/mcp-servers/${server.id}`, { key: account.key })).body).toMatchObject({ status: "pending", last_error: expect.stringContaining("legacy") });

    const allowAgain = await patch(account.key, server.id, { auto_approve: true, tool_defs: ["shout", "count"] });
    expect(allowAgain.body.auto_approve).toBe(true);
    const newList = await patch(account.key, server.id, { script_allowlist: ["https://cdn.example.com"] });
    expect(newList.body).toMatchObject({ auto_approve: false, script_allowlist: ["https://cdn.example.com"] });
  });

  it("keeps an MCP server that cannot be reached pending, saying why", async () => {
    // A loopback port nothing listens on: the fake REST server's, closed.
    const gone = await startRestFake();
    const url = gone.url("/mcp");
    await gone.close();
    const server = await create(account.key, { name: "Gone", url, kind: "mcp_http" });
    const response = await platform.call(`/mcp-servers/${server.id}/approve`, { key: account.key, method: "POST" });
    expect(response.status).toBe(422);
    expect(response.body.error.error_code).toMatch(/^tool_server_/);
    expect((await platform.call(`/mcp-servers/${server.id}`, { key: account.key })).body).toMatchObject({ status: "pending", last_error: expect.stringContaining(`tool server ${server.id}`) });
  });
});

describe("OAuth of tool servers", () => {
  it("answers 409 for a server that does not use OAuth, and 422 for a redirect_uri off the allow-list", async () => {
    const plain = await create(account.key, restServer());
    const notOAuth = await platform.call(`/mcp-servers/${plain.id}/oauth/start`, { key: account.key, method: "POST" });
    expect(notOAuth.status).toBe(409);
    expect(notOAuth.body.error.error_code).toBe("oauth_not_used");

    const oauth = await create(account.key, {
      name: "OAuth API",
      url: "https://api.example.com",
      auth_type: "oauth2",
      auth_config: { authorization_url: "https://auth.example.com/authorize", token_url: "https://auth.example.com/token", client_id: "cid", scopes: ["read"] },
    });
    expect(oauth.auth_config).toMatchObject({ client_id: "cid", scopes: ["read"] });
    const badRedirect = await platform.call(`/mcp-servers/${oauth.id}/oauth/start`, {
      key: account.key,
      query: { user_id: "alice" },
      body: { redirect_uri: "https://evil.example.net/cb" },
    });
    expect(badRedirect.status).toBe(422);
    expect(badRedirect.body.error.error_code).toBe("redirect_uri_not_allowed");
  });

  it("refuses an unknown state on complete and on the callback page", async () => {
    const oauth = await create(account.key, {
      name: "OAuth API 2",
      url: "https://api.example.com",
      auth_type: "oauth2",
      auth_config: { authorization_url: "https://auth.example.com/authorize", token_url: "https://auth.example.com/token", client_id: "cid" },
    });
    const complete = await platform.call(`/mcp-servers/${oauth.id}/oauth/complete`, { key: account.key, body: { code: "c", state: "nope", user_id: "alice" } });
    expect(complete.status).toBe(422);
    expect(complete.body.error.error_code).toBe("invalid_state");
    const missing = await platform.call(`/mcp-servers/${oauth.id}/oauth/complete`, { key: account.key, body: { state: "nope" } });
    expect(missing.status).toBe(422);
    expect(missing.body.error.message).toContain("code:");
    const page = await platform.request("/mcp-servers/oauth/callback?code=c&state=nope");
    expect(page.status).toBe(400);
    expect(await page.text()).toContain("unknown, already used or expired");
  });
});

// --- Runs -----------------------------------------------------------------------------------------

async function agentFor(userId: string, mode: "autonomous" | "approval") {
  const response = await platform.call("/agents", { key: account.key, body: { name: `Agent ${mode}`, instructions: "Use tools.", user_id: userId, default_permission_mode: mode } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.id as number;
}

async function run(userId: string, agentId: number, message: string) {
  const response = await platform.call("/runs", { key: account.key, query: { user_id: userId }, body: { teammate_id: agentId, stream: false, message } });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.id as number;
}

async function settled(runId: number, userId: string, statuses = ["completed", "failed", "awaiting_approval"]) {
  await expect
    .poll(async () => (await platform.call(`/runs/${runId}`, { key: account.key, query: { user_id: userId } })).body.status, { timeout: 20_000, interval: 25 })
    .toSatisfy((status: string) => statuses.includes(status));
  return (await platform.call(`/runs/${runId}`, { key: account.key, query: { user_id: userId } })).body;
}

const callsTo = (path: string) => rest.calls.filter((call) => call.path === path);

describe("tools of custom servers in runs", () => {
  let weather: { id: number };

  beforeAll(async () => {
    weather = await create(account.key, restServer({ name: "Run weather" }));
    await approve(account.key, weather.id);
  });

  it("calls a REST tool with path, query and the API key, and a POST tool with a JSON body", async () => {
    const agent = await agentFor("alice", "autonomous");
    const before = callsTo("/v1/weather/Paris%20Nord").length;
    const runId = await run(
      "alice",
      agent,
      `::tool srv${weather.id}__get_weather {"city":"Paris Nord","units":"imperial"}\n::tool srv${weather.id}__add_note {"text":"pack an umbrella"}`,
    );
    const done = await settled(runId, "alice");
    expect(done.status).toBe("completed");
    expect(done.output).toContain(`Tool srv${weather.id}__get_weather returned {"status":200,"data":{"city":"Paris Nord","temperature":21,"units":"imperial"}}`);
    expect(done.output).toContain(`Tool srv${weather.id}__add_note returned {"status":201`);
    const calls = callsTo("/v1/weather/Paris%20Nord");
    expect(calls).toHaveLength(before + 1);
    expect(calls.at(-1)).toMatchObject({ method: "GET", query: { units: "imperial" } });
    expect(calls.at(-1)!.headers["x-api-key"]).toBe(API_KEY);
    expect(callsTo("/v1/notes").at(-1)).toMatchObject({ method: "POST", json: { text: "pack an umbrella" } });
  });

  it("gives the model a server's 5xx, with its body, as the tool's error, and the run goes on", async () => {
    const agent = await agentFor("alice", "autonomous");
    const done = await settled(await run("alice", agent, `::tool srv${weather.id}__boom {}`), "alice");
    expect(done.status).toBe("completed");
    expect(done.output).toContain(`Tool srv${weather.id}__boom failed: Run weather answered HTTP 500: {"error":"exploded"}`);
  });

  it("does not offer the tools of a pending or disabled server", async () => {
    const pending = await create(account.key, restServer({ name: "Pending weather" }));
    const agent = await agentFor("alice", "autonomous");
    const before = rest.calls.length;
    const done = await settled(await run("alice", agent, `::tool srv${pending.id}__get_weather {"city":"Oslo"}`), "alice");
    expect(done.output ?? "").not.toContain("returned {\"status\":200");
    expect(rest.calls.length).toBe(before);
  });

  it("offers an end-user's server to that end-user's runs only", async () => {
    const bobs = await create(account.key, restServer({ name: "Bob's weather" }), "bob");
    await approve(account.key, bobs.id, "bob");
    const before = callsTo("/v1/weather/Rome").length;
    const alice = await settled(await run("alice", await agentFor("alice", "autonomous"), `::tool srv${bobs.id}__get_weather {"city":"Rome"}`), "alice");
    expect(alice.output ?? "").not.toContain("\"city\":\"Rome\"");
    expect(callsTo("/v1/weather/Rome")).toHaveLength(before);
    const bob = await settled(await run("bob", await agentFor("bob", "autonomous"), `::tool srv${bobs.id}__get_weather {"city":"Rome"}`), "bob");
    expect(bob.output).toContain("\"city\":\"Rome\"");
    expect(callsTo("/v1/weather/Rome")).toHaveLength(before + 1);
  });

  it("asks for approval in approval mode, and calls the server once allowed", async () => {
    const agent = await agentFor("carol", "approval");
    const before = callsTo("/v1/weather/Lima").length;
    const runId = await run("carol", agent, `::tool srv${weather.id}__get_weather {"city":"Lima"}`);
    expect((await settled(runId, "carol")).status).toBe("awaiting_approval");
    expect(callsTo("/v1/weather/Lima")).toHaveLength(before);
    const requests = (await platform.call(`/runs/${runId}/permissions`, { key: account.key, query: { user_id: "carol" } })).body.data;
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ kind: "tool", tool_name: `srv${weather.id}__get_weather`, status: "pending" });
    const allowed = await platform.call(`/runs/${runId}/approve`, { key: account.key, query: { user_id: "carol" }, body: { request_id: requests[0].request_id, decision: "allow" } });
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(200);
    const done = await settled(runId, "carol", ["completed", "failed"]);
    expect(done.status).toBe("completed");
    expect(done.output).toContain("\"city\":\"Lima\"");
    expect(callsTo("/v1/weather/Lima")).toHaveLength(before + 1);
  });

  it("skips approval for a tool on the end-user's allow-list", async () => {
    const allowed = await platform.call("/permissions", { key: account.key, body: { user_id: "gina", tool: `srv${weather.id}__get_weather` } });
    expect(allowed.status).toBe(201);
    const agent = await agentFor("gina", "approval");
    const done = await settled(await run("gina", agent, `::tool srv${weather.id}__get_weather {"city":"Cusco"}`), "gina");
    expect(done.status).toBe("completed");
    expect(done.output).toContain("\"city\":\"Cusco\"");
    // Only that tool: another of the same server still asks.
    const other = await settled(await run("gina", agent, `::tool srv${weather.id}__add_note {"text":"x"}`), "gina");
    expect(other.status).toBe("awaiting_approval");
  });

  it("skips approval for an auto_approve server", async () => {
    const trusted = await create(account.key, restServer({ name: "Trusted weather", auto_approve: true }));
    await approve(account.key, trusted.id);
    const agent = await agentFor("carol", "approval");
    const done = await settled(await run("carol", agent, `::tool srv${trusted.id}__get_weather {"city":"Quito"}`), "carol");
    expect(done.status).toBe("completed");
    expect(done.output).toContain("\"city\":\"Quito\"");
  });

  it("offers the tools an MCP server listed at approval, and hands the model a call's failure as the tool's error", async () => {
    // A port nothing listens on: the call fails, and that is the model's to read.
    const gone = await startRestFake();
    const url = gone.url("/mcp");
    await gone.close();
    const server = await create(account.key, { name: "Listed MCP", url, kind: "mcp_http" });
    // What approve stores after listing the tools (the MCP client is tested on its own).
    await platform.database.prisma.platformToolServer.update({
      where: { id: server.id },
      data: { status: "approved", discoveredTools: [{ name: "echo", description: "Echoes", inputSchema: { type: "object", properties: { text: { type: "string" } } } }] },
    });
    const listed = await platform.call(`/mcp-servers/${server.id}`, { key: account.key });
    expect(listed.body.tools).toEqual([{ name: "echo", run_name: `srv${server.id}__echo`, description: "Echoes" }]);
    const done = await settled(await run("dave", await agentFor("dave", "autonomous"), `::tool srv${server.id}__echo {"text":"hi"}`), "dave");
    expect(done.status).toBe("completed");
    expect(done.output).toContain(`Tool srv${server.id}__echo failed: Could not reach 127.0.0.1`);
  });

  it("calls a script's tool in the sandbox with its arguments and allowed origins", async () => {
    const server = await create(account.key, { ...script, name: "Run script", tool_defs: ["shout"], script_allowlist: ["https://cdn.example.com"] });
    await approve(account.key, server.id);
    const done = await settled(await run("dave", await agentFor("dave", "autonomous"), `::tool srv${server.id}__shout {"text":"hi"}`), "dave");
    expect(done.status).toBe("completed");
    expect(done.output).toContain(`Tool srv${server.id}__shout returned {"data":{"tool":"shout","args":{"text":"hi"}}}`);
    // The call names its scope, the run's account and end-user: the sandbox shares its interpreters by
    // account first, then by end-user within it.
    expect(scriptCalls.at(-1)).toEqual({
      source: SCRIPT,
      tool: "shout",
      args: { text: "hi" },
      allowedOrigins: ["https://api.example.com", "https://cdn.example.com"],
      scope: { account: String(account.id), endUser: expect.stringMatching(/^\d+$/) },
    });
  });

  it("sends the end-user's own OAuth token, and tells the model to connect when there is none", async () => {
    const server = await create(account.key, {
      name: "Private API",
      url: rest.url("/v1"),
      auth_type: "oauth2",
      auth_config: { authorization_url: "https://auth.example.com/authorize", token_url: "https://auth.example.com/token", client_id: "cid" },
      tool_defs: [{ name: "whoami", method: "GET", path: "/secret" }],
    });
    await approve(account.key, server.id);
    const agent = await agentFor("erin", "autonomous");
    const before = callsTo("/v1/secret").length;
    const unconnected = await settled(await run("erin", agent, `::tool srv${server.id}__whoami {}`), "erin");
    expect(unconnected.output).toContain(`Tool srv${server.id}__whoami failed: Private API needs this person's authorization`);
    expect(unconnected.output).toContain(`/mcp-servers/${server.id}/oauth/start`);
    expect(callsTo("/v1/secret")).toHaveLength(before);

    const erin = await platform.database.prisma.platformEndUser.findFirstOrThrow({ where: { accountId: account.id, externalId: "erin" } });
    await saveGrant(
      platform.database.prisma,
      { serverId: server.id, accountId: account.id, endUserId: erin.id },
      {
        tokensSealed: sealTokens(platform.config, { accessToken: "erin-access-token", scopes: [] }),
        clientSealed: sealClient(platform.config, { tokenEndpoint: "https://auth.example.com/token", clientId: "cid", tokenEndpointAuthMethod: "none", scopes: [] }),
        expiresAt: null,
      },
    );
    const connected = await settled(await run("erin", agent, `::tool srv${server.id}__whoami {}`), "erin");
    expect(connected.output).toContain(`Tool srv${server.id}__whoami returned {"status":200,"data":{"ok":true}}`);
    expect(callsTo("/v1/secret").at(-1)!.headers.authorization).toBe("Bearer erin-access-token");
    // Another end-user's run does not borrow erin's grant.
    const frank = await settled(await run("frank", await agentFor("frank", "autonomous"), `::tool srv${server.id}__whoami {}`), "frank");
    expect(frank.output).toContain("needs this person's authorization");
    expect(callsTo("/v1/secret")).toHaveLength(before + 1);
  });
});
