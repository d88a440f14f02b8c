// Agents' remaining endpoints and fields: the agent webhook (webhook: true on create, PATCH
// /agents/{id}/webhook, the inbound POST /hooks/agents/{token}), bound repositories and their env
// (account-scoped, the code-host connection, values 8-8192 characters, sealed), chat-channel,
// display_order, visibility, group_id, and from_template's tasks and onboarding memories; every limit
// and isolation (another account, another end-user: 404).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sealCredentials } from "@/server/platform/services/apps/app-credentials";
import { startChatFake, type ChatFake } from "../../helpers/app-fakes";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";
import { pollUntil, waitForRun } from "../../helpers/poll";

let platform: PlatformHarness;
let account: Account;
let other: Account;
let chat: ChatFake;

const prisma = () => platform.database.prisma;
/** The access token of the chat connection the tests store (the chat fake accepts only it). */
const CHAT_TOKEN = "chat-access-token";

beforeAll(async () => {
  chat = await startChatFake({ validAccessToken: async (token) => (token === CHAT_TOKEN ? { accountId: "octo", scopes: [] } : null) });
  platform = await startPlatform({
    apps: { overrides: { chat: { clientId: "chat-client", clientSecret: "chat-secret", apiBaseUrl: chat.baseUrl } } },
  });
  account = await platform.signup({ require_end_user_id: false });
  other = await platform.signup({ require_end_user_id: false });
});
afterAll(async () => {
  await platform.close();
  await chat.close();
});

let counter = 0;
const freshUser = () => `more-user-${++counter}`;

async function newAgent(body: Record<string, unknown> = {}, options: { key?: string; userId?: string } = {}) {
  const response = await platform.call("/agents", {
    key: options.key ?? account.key,
    query: options.userId ? { user_id: options.userId } : {},
    body: { name: "Hooked", default_permission_mode: "autonomous", ...body },
  });
  if (response.status !== 201) throw new Error(`POST /agents: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

async function hook(url: string, body: BodyInit | undefined, headers: Record<string, string> = { "content-type": "application/json" }) {
  const response = await fetch(url, { method: "POST", headers, body });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: (text ? JSON.parse(text) : null) as any };
}

const completedRun = async (runId: number) => {
  const run = await waitForRun((id) => prisma().platformRun.findUnique({ where: { id }, include: { endUser: true } }), runId, ["completed", "failed", "cancelled"]);
  if (run.status !== "completed") throw new Error(`run ${runId} ${run.status}: ${run.error}`);
  return run;
};

const HOOK_URL = () => new RegExp(`^${platform.baseUrl}/hooks/agents/[A-Za-z0-9_-]{43}$`);

describe("agent webhook", () => {
  it("webhook: true on POST /agents gives webhook_url once; only its SHA-256 is kept", async () => {
    const agent = await newAgent({ webhook: true });
    expect(agent.webhook_enabled).toBe(true);
    expect(agent.webhook_url).toMatch(HOOK_URL());
    const token = (agent.webhook_url as string).split("/").at(-1)!;
    const row = await prisma().platformAgent.findUniqueOrThrow({ where: { id: agent.id } });
    expect(row.webhookTokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(token);
    const read = await platform.call(`/agents/${agent.id}`, { key: account.key });
    expect(read.body.webhook_enabled).toBe(true);
    expect(read.body).not.toHaveProperty("webhook_url");
    const listed = await platform.call("/agents", { key: account.key, query: { limit: 100 } });
    expect(JSON.stringify(listed.body)).not.toContain(token);
  });

  it("webhook: true on POST /teammates too; without it no webhook", async () => {
    const teammate = await platform.call("/teammates", { key: account.key, body: { name: "Old form", webhook: true } });
    expect(teammate.status).toBe(201);
    expect(teammate.body.webhook_url).toMatch(HOOK_URL());
    const plain = await newAgent();
    expect(plain.webhook_enabled).toBe(false);
    expect(plain).not.toHaveProperty("webhook_url");
  });

  it("POSTing to the URL starts a run of the agent with the payload as its message (202, no key)", async () => {
    const agent = await newAgent({ webhook: true });
    const accepted = await hook(agent.webhook_url, JSON.stringify({ event: "deploy", ok: true }));
    expect(accepted.status).toBe(202);
    expect(accepted.body).toEqual({ run_id: expect.any(Number), status: expect.stringMatching(/^(queued|running|completed)$/) });
    const run = await completedRun(accepted.body.run_id);
    expect(run.agentId).toBe(agent.id);
    expect(run.metadata).toEqual({ source: "webhook" });
    expect(run.output).toBe('Echo: Webhook payload:\n{\n  "event": "deploy",\n  "ok": true\n}');
    const text = await hook(agent.webhook_url, "plain words", { "content-type": "text/plain" });
    expect((await completedRun(text.body.run_id)).output).toBe("Echo: Webhook payload:\nplain words");
  });

  it("runs in the agent's end-user scope", async () => {
    const owner = freshUser();
    const agent = await newAgent({ webhook: true }, { userId: owner });
    const accepted = await hook(agent.webhook_url, "{}");
    expect(accepted.status).toBe(202);
    const run = await completedRun(accepted.body.run_id);
    expect(run.endUser?.externalId).toBe(owner);
  });

  it("an Idempotency-Key replays the first call's run", async () => {
    const agent = await newAgent({ webhook: true });
    const headers = { "content-type": "application/json", "idempotency-key": `agent-hook-${agent.id}` };
    const first = await hook(agent.webhook_url, '{"n":1}', headers);
    const again = await hook(agent.webhook_url, '{"n":1}', headers);
    expect(again.status).toBe(202);
    expect(again.body.run_id).toBe(first.body.run_id);
    expect(again.headers.get("idempotent-replay")).toBe("true");
    expect(await prisma().platformRun.count({ where: { agentId: agent.id } })).toBe(1);
  });

  it("PATCH …/webhook false pauses (409 webhook_paused, nothing started), true resumes the same URL", async () => {
    const agent = await newAgent({ webhook: true });
    const paused = await platform.call(`/agents/${agent.id}/webhook`, { method: "PATCH", key: account.key, body: { enabled: false } });
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ id: agent.id, webhook_enabled: false });
    expect(paused.body).not.toHaveProperty("webhook_url");
    const refused = await hook(agent.webhook_url, "{}");
    expect(refused.status).toBe(409);
    expect(refused.body.error.error_code).toBe("webhook_paused");
    expect(await prisma().platformRun.count({ where: { agentId: agent.id } })).toBe(0);
    const resumed = await platform.call(`/agents/${agent.id}/webhook`, { method: "PATCH", key: account.key, body: { enabled: true } });
    expect(resumed.body).toMatchObject({ webhook_enabled: true });
    expect(resumed.body).not.toHaveProperty("webhook_url");
    expect((await hook(agent.webhook_url, "{}")).status).toBe(202);
  });

  it("PATCH …/webhook true on an agent without one issues its URL once; rotate replaces it", async () => {
    const agent = await newAgent();
    const off = await platform.call(`/agents/${agent.id}/webhook`, { method: "PATCH", key: account.key, body: { enabled: false } });
    expect(off.body).toMatchObject({ webhook_enabled: false });
    expect(off.body).not.toHaveProperty("webhook_url");
    const issued = await platform.call(`/agents/${agent.id}/webhook`, { method: "PATCH", key: account.key, body: { enabled: true } });
    expect(issued.body.webhook_url).toMatch(HOOK_URL());
    const rotated = await platform.call(`/agents/${agent.id}/webhook`, { method: "PATCH", key: account.key, body: { enabled: true, rotate: true } });
    expect(rotated.body.webhook_url).toMatch(HOOK_URL());
    expect(rotated.body.webhook_url).not.toBe(issued.body.webhook_url);
    expect((await hook(issued.body.webhook_url, "{}")).status).toBe(404);
    expect((await hook(rotated.body.webhook_url, "{}")).status).toBe(202);
  });

  it("requires enabled (422), and is 404 for another account's or end-user's agent, 401 without a key", async () => {
    const owner = freshUser();
    const agent = await newAgent({ webhook: true }, { userId: owner });
    const path = `/agents/${agent.id}/webhook`;
    const missing = await platform.call(path, { method: "PATCH", key: account.key, query: { user_id: owner }, body: {} });
    expect(missing.status).toBe(422);
    expect(missing.body.error.details.fields).toEqual([expect.objectContaining({ field: "enabled" })]);
    const body = { enabled: false };
    expect((await platform.call(path, { method: "PATCH", key: other.key, body })).status).toBe(404);
    expect((await platform.call(path, { method: "PATCH", key: account.key, query: { user_id: freshUser() }, body })).status).toBe(404);
    expect((await platform.call(path, { method: "PATCH", key: account.key, body })).status).toBe(404);
    expect((await platform.call(path, { method: "PATCH", key: null, query: { user_id: owner }, body })).status).toBe(401);
    expect((await prisma().platformAgent.findUniqueOrThrow({ where: { id: agent.id } })).webhookEnabled).toBe(true);
  });

  it("an unknown token is 404; an archived agent's URL is 404; a disabled agent's is 409", async () => {
    expect((await hook(`${platform.baseUrl}/hooks/agents/not-a-token`, "{}")).status).toBe(404);
    const disabled = await newAgent({ webhook: true });
    await platform.call(`/agents/${disabled.id}/disable`, { method: "POST", key: account.key });
    expect((await hook(disabled.webhook_url, "{}")).status).toBe(409);
    const archived = await newAgent({ webhook: true });
    await platform.call(`/agents/${archived.id}`, { method: "DELETE", key: account.key });
    expect((await hook(archived.webhook_url, "{}")).status).toBe(404);
  });

  it("a payload over 256 KB is 413", async () => {
    const agent = await newAgent({ webhook: true });
    // The server stops reading an oversized body and may drop the connection afterwards: not reused.
    const response = await hook(agent.webhook_url, "x".repeat(256 * 1024 + 1), { "content-type": "text/plain", connection: "close" });
    expect(response.status).toBe(413);
    expect(response.body.error).toMatchObject({ type: "payload_too_large", code: 413 });
    expect(await prisma().platformRun.count({ where: { agentId: agent.id } })).toBe(0);
  });
});

describe("agent repositories", () => {
  let connected: Account;
  let connectionId: string;

  beforeAll(async () => {
    connected = await platform.signup({ require_end_user_id: false });
    // The account-level code-host connection a binding needs (the OAuth flow itself: apps.test.ts).
    connectionId = `conn_repos_${connected.id}`;
    await prisma().platformAppConnection.create({
      data: { id: connectionId, accountId: connected.id, endUserId: null, app: "codehost", authKind: "oauth2", status: "active" },
    });
  });

  const repoCall = (path: string, options: { method?: string; key?: string | null; body?: unknown; query?: Record<string, string> } = {}) =>
    platform.call(path, { method: options.method ?? "GET", key: options.key === undefined ? connected.key : options.key, body: options.body, query: options.query });

  async function bound(name = `octo/repo-${++counter}`) {
    const agent = await newAgent({}, { key: connected.key });
    const repo = await repoCall(`/agents/${agent.id}/repos`, { method: "POST", body: { repo_full_name: name } });
    expect(repo.status).toBe(201);
    return { agent, repo: repo.body };
  }

  it("binds a repository (201, mode trusted by default), lists it, re-binds (200) keeping or changing the mode", async () => {
    const agent = await newAgent({}, { key: connected.key });
    const created = await repoCall(`/agents/${agent.id}/repos`, { method: "POST", body: { repo_full_name: "octo/hello-world" } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(Number),
      agent_id: agent.id,
      repo_full_name: "octo/hello-world",
      mode: "trusted",
      connection_id: connectionId,
      env_keys: [],
      commands_digest: null,
      commands_approved_at: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const changed = await repoCall(`/agents/${agent.id}/repos`, { method: "POST", body: { repo_full_name: "octo/hello-world", mode: "review" } });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ id: created.body.id, mode: "review" });
    const kept = await repoCall(`/agents/${agent.id}/repos`, { method: "POST", body: { repo_full_name: "octo/hello-world" } });
    expect(kept.body).toMatchObject({ id: created.body.id, mode: "review" });
    await repoCall(`/agents/${agent.id}/repos`, { method: "POST", body: { repo_full_name: "octo/second" } });
    const listed = await repoCall(`/agents/${agent.id}/repos`);
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((repo: { repo_full_name: string }) => repo.repo_full_name)).toEqual(["octo/hello-world", "octo/second"]);
    const paged = await repoCall(`/agents/${agent.id}/repos`, { query: { limit: "1" } });
    expect(paged.body).toMatchObject({ has_more: true, data: [{ repo_full_name: "octo/hello-world" }] });
    const next = await repoCall(`/agents/${agent.id}/repos`, { query: { limit: "1", starting_after: String(created.body.id) } });
    expect(next.body).toMatchObject({ has_more: false, data: [{ repo_full_name: "octo/second" }] });
  });

  it("needs an active account-level code-host connection (422 app_not_connected)", async () => {
    const agent = await newAgent();
    const refused = await platform.call(`/agents/${agent.id}/repos`, { key: account.key, body: { repo_full_name: "octo/x" } });
    expect(refused.status).toBe(422);
    expect(refused.body.error.error_code).toBe("app_not_connected");
    // An end-user's connection does not count.
    const endUser = await prisma().platformEndUser.create({ data: { accountId: account.id, externalId: freshUser() } });
    await prisma().platformAppConnection.create({
      data: { id: `conn_enduser_${account.id}`, accountId: account.id, endUserId: endUser.id, app: "codehost", authKind: "oauth2", status: "active" },
    });
    expect((await platform.call(`/agents/${agent.id}/repos`, { key: account.key, body: { repo_full_name: "octo/x" } })).status).toBe(422);
    expect(await prisma().platformAgentRepo.count({ where: { agentId: agent.id } })).toBe(0);
  });

  it("validates repo_full_name and mode (422 naming the field)", async () => {
    const agent = await newAgent({}, { key: connected.key });
    for (const body of [{}, { repo_full_name: "no-slash" }, { repo_full_name: "a/b/c" }, { repo_full_name: `o/${"r".repeat(200)}` }]) {
      const response = await repoCall(`/agents/${agent.id}/repos`, { method: "POST", body });
      expect(response.status).toBe(422);
      expect(response.body.error.details.fields[0].field).toBe("repo_full_name");
    }
    const mode = await repoCall(`/agents/${agent.id}/repos`, { method: "POST", body: { repo_full_name: "o/r", mode: "Not A Mode" } });
    expect(mode.status).toBe(422);
    expect(mode.body.error.details.fields[0].field).toBe("mode");
  });

  it("is account-scoped: user_id is refused, an end-user's agent and another account's are 404", async () => {
    const { agent, repo } = await bound();
    const scoped = await repoCall(`/agents/${agent.id}/repos`, { query: { user_id: "someone" } });
    expect(scoped.status).toBe(400);
    expect(scoped.body.error.error_code).toBe("unknown_query_parameter");
    const endUserAgent = await newAgent({}, { key: connected.key, userId: freshUser() });
    expect((await repoCall(`/agents/${endUserAgent.id}/repos`, { method: "POST", body: { repo_full_name: "o/r" } })).status).toBe(404);
    expect((await repoCall(`/agents/${endUserAgent.id}/repos`)).status).toBe(404);
    const paths: [string, string, unknown?][] = [
      ["POST", `/agents/${agent.id}/repos`, { repo_full_name: "o/r" }],
      ["GET", `/agents/${agent.id}/repos`],
      ["DELETE", `/agents/${agent.id}/repos/${repo.id}`],
      ["GET", `/agents/${agent.id}/repos/${repo.id}/env`],
      ["PUT", `/agents/${agent.id}/repos/${repo.id}/env`, { env: { TOKEN: "12345678" } }],
      ["DELETE", `/agents/${agent.id}/repos/${repo.id}/env/TOKEN`],
      ["POST", `/agents/${agent.id}/repos/${repo.id}/approve-commands`, { commands_digest: "abc" }],
      ["DELETE", `/agents/${agent.id}/repos/${repo.id}/commands`],
    ];
    for (const [method, path, body] of paths) {
      expect((await repoCall(path, { method, key: other.key, body })).status).toBe(404);
      expect((await repoCall(path, { method, key: null, body })).status).toBe(401);
    }
    // Another agent's repo id under this agent is 404 too.
    const { agent: second } = await bound();
    expect((await repoCall(`/agents/${second.id}/repos/${repo.id}/env`)).status).toBe(404);
    expect((await repoCall(`/agents/${agent.id}/repos/${repo.id}/env`)).body).toMatchObject({ repo_id: repo.id, keys: [] });
  });

  it("PUT env replaces the set, values sealed and never returned; GET shows names; DELETE one key", async () => {
    const { agent, repo } = await bound();
    const base = `/agents/${agent.id}/repos/${repo.id}/env`;
    const secret = "s3cret-value-that-is-long";
    const put = await repoCall(base, { method: "PUT", body: { env: { API_TOKEN: secret, OTHER: "x".repeat(8192) } } });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ repo_id: repo.id, keys: ["API_TOKEN", "OTHER"], updated_at: expect.any(String) });
    const row = await prisma().platformAgentRepo.findUniqueOrThrow({ where: { id: repo.id } });
    expect(row.envSealed).not.toBeNull();
    expect(row.envSealed).not.toContain(secret);
    for (const path of [base, `/agents/${agent.id}/repos`]) {
      const read = await repoCall(path);
      expect(JSON.stringify(read.body)).not.toContain(secret);
    }
    expect((await repoCall(`/agents/${agent.id}/repos`)).body.data[0].env_keys).toEqual(["API_TOKEN", "OTHER"]);
    // Replaces: OTHER goes.
    const replaced = await repoCall(base, { method: "PUT", body: { env: { API_TOKEN: secret, NEW_KEY: "abcdefgh" } } });
    expect(replaced.body.keys).toEqual(["API_TOKEN", "NEW_KEY"]);
    expect((await repoCall(`${base}/NEW_KEY`, { method: "DELETE" })).status).toBe(204);
    expect((await repoCall(`${base}/NEW_KEY`, { method: "DELETE" })).status).toBe(404);
    expect((await repoCall(base)).body.keys).toEqual(["API_TOKEN"]);
    expect((await repoCall(`${base}/API_TOKEN`, { method: "DELETE" })).status).toBe(204);
    expect((await prisma().platformAgentRepo.findUniqueOrThrow({ where: { id: repo.id } })).envSealed).toBeNull();
    // An empty set clears it too.
    await repoCall(base, { method: "PUT", body: { env: { A_KEY: "abcdefgh" } } });
    expect((await repoCall(base, { method: "PUT", body: { env: {} } })).body.keys).toEqual([]);
  });

  it("env values are 8-8192 characters, keys variable names, at most 100 (422 naming the field)", async () => {
    const { agent, repo } = await bound();
    const base = `/agents/${agent.id}/repos/${repo.id}/env`;
    const tooMany = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`K${i}`, "abcdefgh"]));
    const cases: [unknown, string][] = [
      [{ env: { SHORT: "1234567" } }, "env.SHORT"],
      [{ env: { LONG: "x".repeat(8193) } }, "env.LONG"],
      [{ env: { "1BAD": "abcdefgh" } }, "env.1BAD"],
      [{ env: { "has-dash": "abcdefgh" } }, "env.has-dash"],
      [{ env: tooMany }, "env"],
      [{}, "env"],
      [{ env: { NUM: 12345678 } }, "env.NUM"],
    ];
    for (const [body, field] of cases) {
      const response = await repoCall(base, { method: "PUT", body });
      expect(response.status, JSON.stringify(body).slice(0, 80)).toBe(422);
      expect(response.body.error.details.fields.map((entry: { field: string }) => entry.field)).toContain(field);
    }
    expect((await repoCall(base, { method: "PUT", body: { env: { EXACT_MIN: "12345678" } } })).status).toBe(200);
    expect((await repoCall(base, { method: "PUT", body: { env: Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`K${i}`, "abcdefgh"])) } })).status).toBe(200);
  });

  it("DELETE unbinds (204; then 404), its env with it", async () => {
    const { agent, repo } = await bound();
    await repoCall(`/agents/${agent.id}/repos/${repo.id}/env`, { method: "PUT", body: { env: { TOKEN: "abcdefgh" } } });
    expect((await repoCall(`/agents/${agent.id}/repos/${repo.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await repoCall(`/agents/${agent.id}/repos/${repo.id}`, { method: "DELETE" })).status).toBe(404);
    expect((await repoCall(`/agents/${agent.id}/repos/${repo.id}/env`)).status).toBe(404);
    expect(await prisma().platformAgentRepo.count({ where: { id: repo.id } })).toBe(0);
  });

  it("approve-commands records the digest (a new one replaces it); DELETE …/commands clears it (204)", async () => {
    const { agent, repo } = await bound();
    const base = `/agents/${agent.id}/repos/${repo.id}`;
    const digest = `sha256:${"ab12".repeat(16)}`;
    const approved = await repoCall(`${base}/approve-commands`, { method: "POST", body: { commands_digest: digest } });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ id: repo.id, commands_digest: digest, commands_approved_at: expect.any(String) });
    expect((await repoCall(`/agents/${agent.id}/repos`)).body.data[0]).toMatchObject({ id: repo.id, commands_digest: digest });
    // A re-bind keeps the approval.
    expect((await repoCall(`/agents/${agent.id}/repos`, { method: "POST", body: { repo_full_name: repo.repo_full_name } })).body.commands_digest).toBe(digest);
    const replaced = await repoCall(`${base}/approve-commands`, { method: "POST", body: { commands_digest: "c0ffee" } });
    expect(replaced.body.commands_digest).toBe("c0ffee");

    expect((await repoCall(`${base}/commands`, { method: "DELETE" })).status).toBe(204);
    expect((await repoCall(`/agents/${agent.id}/repos`)).body.data[0]).toMatchObject({ commands_digest: null, commands_approved_at: null });
    // Nothing approved: still 204.
    expect((await repoCall(`${base}/commands`, { method: "DELETE" })).status).toBe(204);
  });

  it("approve-commands validates commands_digest (422 naming it); unknown repositories are 404", async () => {
    const { agent, repo } = await bound();
    const base = `/agents/${agent.id}/repos/${repo.id}`;
    for (const body of [{}, { commands_digest: "" }, { commands_digest: "x".repeat(201) }, { commands_digest: "has space" }, { commands_digest: 123 }, { commands_digest: null }]) {
      const response = await repoCall(`${base}/approve-commands`, { method: "POST", body });
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(response.body.error.details.fields[0].field).toBe("commands_digest");
    }
    expect((await repoCall(`${base}/approve-commands`, { method: "POST", body: { commands_digest: "x".repeat(200) } })).status).toBe(200);
    expect((await repoCall(`/agents/${agent.id}/repos/999999/approve-commands`, { method: "POST", body: { commands_digest: "abc" } })).status).toBe(404);
    expect((await repoCall(`/agents/${agent.id}/repos/999999/commands`, { method: "DELETE" })).status).toBe(404);
    const { agent: second } = await bound();
    expect((await repoCall(`/agents/${second.id}/repos/${repo.id}/approve-commands`, { method: "POST", body: { commands_digest: "abc" } })).status).toBe(404);
    expect((await repoCall(`/agents/${second.id}/repos/${repo.id}/commands`, { method: "DELETE" })).status).toBe(404);
    expect((await repoCall(`${base}/commands`, { method: "DELETE", query: { user_id: "someone" } })).status).toBe(400);
    // The other account's attempts above changed nothing.
    expect((await prisma().platformAgentRepo.findUniqueOrThrow({ where: { id: repo.id } })).commandsDigest).toBe("x".repeat(200));
  });
});

describe("from_template tasks and onboarding memories", () => {
  const tasksOf = (agentId: number) =>
    prisma().platformTask.findMany({ where: { agentId }, include: { triggers: true }, orderBy: { id: "asc" } });

  it("seeds every default task (with its schedule) and every bootstrap task (due once, now) when no slugs are given", async () => {
    const before = Date.now();
    const agent = await newAgentFromTemplate({ from_template: "customer-support" });
    const tasks = await tasksOf(agent.id);
    expect(tasks.map((task) => task.name)).toEqual(["Weekly FAQ review", "Learn the product"]);
    const [weekly, bootstrap] = tasks;
    expect(weekly!.triggers).toEqual([expect.objectContaining({ type: "schedule", cron: "0 9 * * 1", runAt: null })]);
    expect(bootstrap!.triggers).toEqual([expect.objectContaining({ type: "schedule", cron: null, runAt: expect.any(Date) })]);
    expect(bootstrap!.triggers[0]!.runAt!.getTime()).toBeGreaterThanOrEqual(before - 1000);
    // The tasks are the agent's, in its scope, listed by GET /tasks.
    const listed = await platform.call("/tasks", { key: account.key, query: { limit: 100 } });
    expect(listed.body.data.filter((task: { teammate_id: number }) => task.teammate_id === agent.id)).toHaveLength(2);
  });

  it("the bootstrap task runs once", async () => {
    await platform.runtime();
    const agent = await newAgentFromTemplate({ from_template: "customer-support", enabled_task_slugs: [] });
    const [bootstrap] = await tasksOf(agent.id);
    expect(bootstrap!.name).toBe("Learn the product");
    // Fired: its run exists and the one-time trigger is retired (no next run), in whichever order the
    // fire writes them; then exactly one run.
    const fired = async () => {
      const trigger = await prisma().platformTaskTrigger.findFirstOrThrow({ where: { taskId: bootstrap!.id } });
      const runs = await prisma().platformRun.count({ where: { taskId: bootstrap!.id } });
      return { retired: trigger.nextRunAt === null, runs };
    };
    const state = await pollUntil(fired, (now) => now.retired && now.runs > 0, "the bootstrap trigger to fire and retire");
    expect(state).toEqual({ retired: true, runs: 1 });
  });

  it("enabled_task_slugs and enabled_bootstrap_slugs pick which; [] seeds none of that kind", async () => {
    const none = await newAgentFromTemplate({ from_template: "customer-support", enabled_task_slugs: [], enabled_bootstrap_slugs: [] });
    expect(await tasksOf(none.id)).toEqual([]);
    const onlyDefault = await newAgentFromTemplate({
      from_template: "customer-support",
      enabled_task_slugs: ["weekly-faq-review"],
      enabled_bootstrap_slugs: [],
    });
    expect((await tasksOf(onlyDefault.id)).map((task) => task.name)).toEqual(["Weekly FAQ review"]);
  });

  it("seeds in the agent's end-user scope; a refused create seeds nothing", async () => {
    const owner = freshUser();
    const agent = await newAgentFromTemplate({ from_template: "customer-support", user_id: owner });
    const tasks = await tasksOf(agent.id);
    expect(tasks).toHaveLength(2);
    const endUser = await prisma().platformEndUser.findFirstOrThrow({ where: { accountId: account.id, externalId: owner } });
    expect(tasks.every((task) => task.endUserId === endUser.id)).toBe(true);
    const countBefore = await prisma().platformTask.count({ where: { accountId: account.id } });
    const refused = await platform.call("/agents", { key: account.key, body: { from_template: "customer-support", enabled_bootstrap_slugs: ["bogus"] } });
    expect(refused.status).toBe(422);
    expect(refused.body.error.details.field).toBe("enabled_bootstrap_slugs");
    expect(await prisma().platformTask.count({ where: { accountId: account.id } })).toBe(countBefore);
  });

  it("onboarding answers become memories of the agent's scope (account level without user_id); unknown keys ignored", async () => {
    const agent = await newAgentFromTemplate({
      from_template: "customer-support",
      onboarding_answers: { product_name: "Gizmo-9", unknown_key: "never stored" },
      enabled_task_slugs: [],
      enabled_bootstrap_slugs: [],
    });
    // GET /memories needs a user_id, so the account-level rows are read here and through the prompt.
    const rows = await prisma().platformMemory.findMany({ where: { agentId: agent.id } });
    expect(rows.map((row) => [row.content, row.endUserId, row.source])).toEqual([["What is your product called? Gizmo-9", null, "onboarding"]]);
    const prompt = await platform.call(`/agents/${agent.id}/system-prompt`, { key: account.key });
    expect(prompt.body.prompt).toContain("What is your product called? Gizmo-9");
    expect(prompt.body.prompt).not.toContain("never stored");
    // An end-user's memories do not include them.
    const endUserView = await platform.call("/memories", { key: account.key, query: { user_id: freshUser() } });
    expect(endUserView.status).toBe(200);
    expect(JSON.stringify(endUserView.body)).not.toContain("Gizmo-9");
    expect(agent.template).toBe("customer-support");
  });
});

async function newAgentFromTemplate(body: Record<string, unknown>) {
  const response = await platform.call("/agents", { key: account.key, body });
  if (response.status !== 201) throw new Error(`POST /agents: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

describe("POST /agents/{agent_id}/chat-channel", () => {
  let chatAccount: Account;

  beforeAll(async () => {
    chatAccount = await platform.signup({ require_end_user_id: false });
    // The account-level chat connection (its OAuth flow: apps.test.ts), with a token the fake accepts.
    await prisma().platformAppConnection.create({
      data: {
        id: `conn_chat_${chatAccount.id}`,
        accountId: chatAccount.id,
        endUserId: null,
        app: "chat",
        authKind: "oauth2",
        status: "active",
        options: { team_id: "T0001", team: "Acme" },
        credentialsSealed: sealCredentials(platform.config, { kind: "oauth2", access_token: CHAT_TOKEN, token_type: "Bearer" }),
      },
    });
  });

  it("creates a channel named after the agent in the workspace and binds it (201)", async () => {
    const agent = await newAgent({ name: "Release Notes Bot!", chat_channels: ["C-old"] }, { key: chatAccount.key });
    const response = await platform.call(`/agents/${agent.id}/chat-channel`, { method: "POST", key: chatAccount.key });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    expect(response.body.channel).toEqual({ id: expect.stringMatching(/^C\d{4}$/), name: "release-notes-bot", is_private: false, team_id: "T0001" });
    expect(response.body.agent).toMatchObject({ id: agent.id, chat_channels: ["C-old", response.body.channel.id], inbound_chat_enabled: true });
    const call = chat.calls.at(-1)!;
    expect(call).toMatchObject({ method: "POST", path: "/conversations.create", body: { name: "release-notes-bot", is_private: false } });
    // Bound: one agent per channel.
    const clash = await platform.call("/agents", { key: chatAccount.key, body: { chat_channels: [response.body.channel.id] } });
    expect(clash.status).toBe(409);
    expect(clash.body.error.error_code).toBe("chat_channel_taken");
  });

  it("works for an end-user's agent in its scope; 404 for another end-user, another account, archived; 401 without a key", async () => {
    const owner = freshUser();
    const agent = await newAgent({ name: "Scoped" }, { key: chatAccount.key, userId: owner });
    const path = `/agents/${agent.id}/chat-channel`;
    expect((await platform.call(path, { method: "POST", key: chatAccount.key, query: { user_id: freshUser() } })).status).toBe(404);
    expect((await platform.call(path, { method: "POST", key: chatAccount.key })).status).toBe(404);
    expect((await platform.call(path, { method: "POST", key: other.key, query: { user_id: owner } })).status).toBe(404);
    expect((await platform.call(path, { method: "POST", key: null, query: { user_id: owner } })).status).toBe(401);
    const made = await platform.call(path, { method: "POST", key: chatAccount.key, query: { user_id: owner } });
    expect(made.status).toBe(201);
    expect(made.body.agent.user_id).toBe(owner);
    const archived = await newAgent({ name: "Gone" }, { key: chatAccount.key });
    await platform.call(`/agents/${archived.id}`, { method: "DELETE", key: chatAccount.key });
    expect((await platform.call(`/agents/${archived.id}/chat-channel`, { method: "POST", key: chatAccount.key })).status).toBe(404);
  });

  it("a name the workspace has is 409 chat_channel_name_taken; nothing is bound", async () => {
    const agent = await newAgent({ name: "General" }, { key: chatAccount.key });
    const response = await platform.call(`/agents/${agent.id}/chat-channel`, { method: "POST", key: chatAccount.key });
    expect(response.status).toBe(409);
    expect(response.body.error.error_code).toBe("chat_channel_name_taken");
    expect((await platform.call(`/agents/${agent.id}`, { key: chatAccount.key })).body.chat_channels).toEqual([]);
  });

  it("needs the chat app connected at the account level (422 app_not_connected)", async () => {
    const agent = await newAgent();
    const response = await platform.call(`/agents/${agent.id}/chat-channel`, { method: "POST", key: account.key });
    expect(response.status).toBe(422);
    expect(response.body.error.error_code).toBe("app_not_connected");
  });
});

describe("display_order, visibility and group_id", () => {
  it("GET /agents sorts by COALESCE(display_order, id) ascending; null restores the id's place", async () => {
    const userId = freshUser();
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) ids.push((await newAgent({ name: `Ordered ${i}` }, { userId })).id);
    const patch = (id: number, body: Record<string, unknown>) =>
      platform.call(`/agents/${id}`, { method: "PATCH", key: account.key, query: { user_id: userId }, body });
    const order = async () =>
      (await platform.call("/agents", { key: account.key, query: { user_id: userId } })).body.data.map((agent: { id: number }) => agent.id);
    expect(await order()).toEqual(ids);
    expect((await patch(ids[2]!, { display_order: -1 })).body.display_order).toBe(-1);
    expect(await order()).toEqual([ids[2], ids[0], ids[1]]);
    await patch(ids[2]!, { display_order: null });
    expect(await order()).toEqual(ids);
  });

  it("display_order must be a 32-bit integer; visibility at most 50 characters, null leaves it (422 naming the field)", async () => {
    const agent = await newAgent();
    const patch = (body: Record<string, unknown>) => platform.call(`/agents/${agent.id}`, { method: "PATCH", key: account.key, body });
    for (const [body, field] of [
      [{ display_order: 2_147_483_648 }, "display_order"],
      [{ display_order: 1.5 }, "display_order"],
      [{ display_order: "1" }, "display_order"],
      [{ visibility: "v".repeat(51) }, "visibility"],
    ] as const) {
      const response = await patch(body);
      expect(response.status).toBe(422);
      expect(response.body.error.details.fields[0].field).toBe(field);
    }
    expect((await patch({ display_order: 2_147_483_647, visibility: "private" })).body).toMatchObject({ display_order: 2_147_483_647, visibility: "private" });
    expect((await patch({ visibility: null })).body.visibility).toBe("private");
  });

  it("group_id: PATCH null ungroups an agent in no group", async () => {
    const agent = await newAgent();
    const ungrouped = await platform.call(`/agents/${agent.id}`, { method: "PATCH", key: account.key, body: { group_id: null } });
    expect(ungrouped.status).toBe(200);
    expect(ungrouped.body.group_id).toBeNull();
  });
});

describe("mate groups (group_id)", () => {
  const create = (userId: string | undefined, body: Record<string, unknown> = {}, key = account.key) =>
    platform.call("/agents", { key, query: userId ? { user_id: userId } : {}, body: { name: "Mate", ...body } });
  const patch = (id: number, userId: string | undefined, body: Record<string, unknown>, key = account.key) =>
    platform.call(`/agents/${id}`, { method: "PATCH", key, query: userId ? { user_id: userId } : {}, body });
  const read = async (id: number, userId: string) => (await platform.call(`/agents/${id}`, { key: account.key, query: { user_id: userId } })).body;
  const expectRefused = (response: { status: number; body: any }, errorCode?: string) => {
    expect(response.status, JSON.stringify(response.body)).toBe(422);
    expect(response.body.error.details.field).toBe("group_id");
    if (errorCode) expect(response.body.error.error_code).toBe(errorCode);
  };

  it("joining an agent's id starts its group (it joins too); others join it; reads and lists show group_id", async () => {
    const user = freshUser();
    const lead = await newAgent({}, { userId: user });
    const first = await newAgent({}, { userId: user });
    // A create refused for another field starts no group.
    expect((await create(user, { group_id: first.id, model: "no-such-model" })).status).toBe(422);
    expect((await read(first.id, user)).group_id).toBeNull();
    const joined = await create(user, { group_id: first.id });
    expect(joined.status).toBe(201);
    expect(joined.body.group_id).toBe(first.id);
    expect((await read(first.id, user)).group_id).toBe(first.id);
    const third = await newAgent({}, { userId: user });
    expect((await patch(third.id, user, { group_id: first.id })).body.group_id).toBe(first.id);

    for (const fields of [{}, { fields: "summary" }]) {
      const listed = await platform.call("/agents", { key: account.key, query: { user_id: user, ...fields } });
      expect(listed.body.data.map((agent: { id: number; group_id: number | null }) => [agent.id, agent.group_id])).toEqual([
        [lead.id, null],
        [first.id, first.id],
        [joined.body.id, first.id],
        [third.id, first.id],
      ]);
    }
    // null ungroups; the group goes on with its other agents.
    expect((await patch(joined.body.id, user, { group_id: null })).body.group_id).toBeNull();
    expect((await patch(joined.body.id, user, { group_id: first.id })).body.group_id).toBe(first.id);
    // An agent can start a group of its own id, leaving the one it was in.
    expect((await patch(third.id, user, { group_id: third.id })).body.group_id).toBe(third.id);
    expect((await read(first.id, user)).group_id).toBe(first.id);
  });

  it("the lead agent (the scope's oldest not archived) cannot join, nor be pulled in as a group's first agent", async () => {
    const user = freshUser();
    const lead = await newAgent({}, { userId: user });
    const mate = await newAgent({}, { userId: user });
    expect((await create(user, { group_id: mate.id })).status).toBe(201);
    expectRefused(await patch(lead.id, user, { group_id: mate.id }), "lead_agent_cannot_join");
    expectRefused(await patch(lead.id, user, { group_id: lead.id }), "lead_agent_cannot_join");
    expectRefused(await create(user, { group_id: lead.id }), "lead_agent_cannot_join");
    expectRefused(await patch(mate.id, user, { group_id: lead.id }), "lead_agent_cannot_join");
    expect((await read(lead.id, user)).group_id).toBeNull();
    expect((await read(mate.id, user)).group_id).toBe(mate.id);
    // The lead may always ungroup (a no-op here); once archived, the next oldest agent is the lead.
    expect((await patch(lead.id, user, { group_id: null })).status).toBe(200);
    expect((await platform.call(`/agents/${lead.id}`, { method: "DELETE", key: account.key, query: { user_id: user } })).status).toBe(204);
    // mate is the lead now: it may leave its group, not join one again.
    expect((await patch(mate.id, user, { group_id: null })).body.group_id).toBeNull();
    expectRefused(await patch(mate.id, user, { group_id: mate.id }), "lead_agent_cannot_join");
    // The group keeps its number while an agent is in it.
    expect((await create(user, { group_id: mate.id })).body.group_id).toBe(mate.id);
  });

  it("only a group of the same end-user scope can be joined: anything else is 422 naming group_id", async () => {
    const user = freshUser();
    const otherUser = freshUser();
    await newAgent({}, { userId: user });
    const mate = await newAgent({}, { userId: user });
    const grouped = await newAgent({ group_id: mate.id }, { userId: user });
    await newAgent({}, { userId: otherUser });
    const elsewhere = await newAgent({}, { userId: otherUser });
    const accountLevel = await newAgent();
    const foreign = await newAgent({}, { key: other.key });

    for (const groupId of [999_999, elsewhere.id, accountLevel.id, foreign.id, grouped.id]) {
      expectRefused(await create(user, { group_id: groupId }));
      expectRefused(await patch(mate.id, user, { group_id: groupId }));
    }
    // From the other scopes, this end-user's group does not exist either.
    expectRefused(await create(otherUser, { group_id: mate.id }));
    expectRefused(await patch(accountLevel.id, undefined, { group_id: mate.id }));
    expectRefused(await create(undefined, { group_id: mate.id }, other.key));
    // Another account's or end-user's agent cannot be changed at all.
    expect((await patch(mate.id, otherUser, { group_id: null })).status).toBe(404);
    expect((await patch(mate.id, undefined, { group_id: null }, other.key)).status).toBe(404);
    expect((await read(mate.id, user)).group_id).toBe(mate.id);
    expect((await read(elsewhere.id, otherUser)).group_id).toBeNull();

    // Types and ranges (422 from the contract).
    for (const groupId of ["1", 1.5, 0, -1, 2_147_483_648, true]) {
      const response = await create(user, { group_id: groupId });
      expect(response.status, String(groupId)).toBe(422);
      expect(response.body.error.details.fields[0].field).toBe("group_id");
    }
  });

  it("a group whose agents are all archived is gone; archived agents cannot start one", async () => {
    const user = freshUser();
    await newAgent({}, { userId: user });
    const first = await newAgent({}, { userId: user });
    const second = await newAgent({ group_id: first.id }, { userId: user });
    for (const agent of [first, second]) {
      expect((await platform.call(`/agents/${agent.id}`, { method: "DELETE", key: account.key, query: { user_id: user } })).status).toBe(204);
    }
    expectRefused(await create(user, { group_id: first.id }));
    expect((await platform.call(`/agents/${second.id}/unarchive`, { method: "POST", key: account.key, query: { user_id: user } })).status).toBe(200);
    expect((await create(user, { group_id: first.id })).body.group_id).toBe(first.id);
  });
});
