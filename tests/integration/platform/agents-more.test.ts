// Agents' remaining endpoints and fields: the agent webhook (webhook: true on create, PATCH
// /agents/{id}/webhook, the inbound POST /hooks/agents/{token}), bound repositories and their env
// (account-scoped, the code-host connection, values 8-8192 characters, sealed), chat-channel,
// display_order, visibility, group_id, and from_template's tasks and onboarding memories; every limit
// and isolation (another account, another end-user: 404).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";

let platform: PlatformHarness;
let account: Account;
let other: Account;

const prisma = () => platform.database.prisma;

beforeAll(async () => {
  platform = await startPlatform();
  account = await platform.signup({ require_end_user_id: false });
  other = await platform.signup({ require_end_user_id: false });
});
afterAll(() => platform.close());

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
  for (let i = 0; i < 400; i++) {
    const run = await prisma().platformRun.findUnique({ where: { id: runId }, include: { endUser: true } });
    if (run?.status === "completed") return run;
    if (run && ["failed", "cancelled"].includes(run.status)) throw new Error(`run ${runId} ${run.status}: ${run.error}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`run ${runId} never completed`);
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
    const response = await hook(agent.webhook_url, "x".repeat(256 * 1024 + 1), { "content-type": "text/plain" });
    expect(response.status).toBe(413);
  });
});
