// Task webhooks: /tasks/{id}/webhook (enable with the URL shown once, rotate, pause, resume, delete),
// the webhook as a trigger, webhook: true on POST /tasks, and the inbound POST /hooks/tasks/{token}
// (public): JSON and text payloads in the run's message, 413, 404, paused 409, admission's 402,
// Idempotency-Key, the IP limit, and isolation of the management endpoints.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addLedgerEntry } from "@/server/platform/repositories/billing";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";
import { waitForRun } from "../../helpers/poll";

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
const freshUser = () => `hook-user-${++counter}`;

async function newTask(options: { key?: string; userId?: string; body?: Record<string, unknown> } = {}) {
  const key = options.key ?? account.key;
  const query = options.userId ? { user_id: options.userId } : {};
  const agent = await platform.call("/agents", { key, query, body: { name: "Hooked", default_permission_mode: "autonomous" } });
  const task = await platform.call("/tasks", { key, query, body: { teammate_id: agent.body.id, instructions: "Triage the event", ...options.body } });
  if (task.status !== 201) throw new Error(`POST /tasks: ${task.status} ${JSON.stringify(task.body)}`);
  return task.body;
}

const webhookCall = (taskId: number, method: string, options: { key?: string | null; userId?: string; body?: unknown } = {}) =>
  platform.call(`/tasks/${taskId}/webhook`, {
    method,
    key: options.key === undefined ? account.key : options.key,
    query: options.userId ? { user_id: options.userId } : {},
    body: options.body ?? (method === "DELETE" ? undefined : method === "POST" ? {} : undefined),
  });

async function enable(taskId: number, userId?: string): Promise<string> {
  const response = await webhookCall(taskId, "POST", { userId });
  expect(response.status).toBe(200);
  return response.body.webhook_url as string;
}

async function hook(url: string, body: BodyInit | undefined, headers: Record<string, string> = { "content-type": "application/json" }) {
  const response = await fetch(url, { method: "POST", headers, body });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: (text ? JSON.parse(text) : null) as any };
}

const runOutput = async (runId: number) => {
  const run = await waitForRun((id) => prisma().platformRun.findUnique({ where: { id } }), runId, ["completed", "failed", "cancelled"]);
  if (run.status !== "completed") throw new Error(`run ${runId} ${run.status}: ${run.error}`);
  return run;
};

describe("POST /tasks/{task_id}/webhook", () => {
  it("enables the webhook: the URL once, only its SHA-256 kept, the task's webhook_enabled on", async () => {
    const task = await newTask();
    const response = await webhookCall(task.id, "POST");
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      task_id: task.id,
      user_id: null,
      trigger_id: expect.stringMatching(/^webhook_\d+$/),
      enabled: true,
      webhook_url: expect.stringMatching(new RegExp(`^${platform.baseUrl}/hooks/tasks/[A-Za-z0-9_-]{43}$`)),
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const token = (response.body.webhook_url as string).split("/").at(-1)!;
    const row = await prisma().platformTask.findUniqueOrThrow({ where: { id: task.id } });
    expect(row.webhookTokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(token);
    const read = await platform.call(`/tasks/${task.id}`, { key: account.key });
    expect(read.body.webhook_enabled).toBe(true);
    expect(JSON.stringify(read.body)).not.toContain(token);
    const listed = await platform.call("/tasks", { key: account.key, query: { limit: 100 } });
    expect(JSON.stringify(listed.body)).not.toContain(token);
  });

  it("rotates on a second call: a new URL, the old one 404, the same trigger", async () => {
    const task = await newTask();
    const first = await webhookCall(task.id, "POST");
    const second = await webhookCall(task.id, "POST");
    expect(second.body.webhook_url).not.toBe(first.body.webhook_url);
    expect(second.body.trigger_id).toBe(first.body.trigger_id);
    expect((await hook(first.body.webhook_url, "{}")).status).toBe(404);
    expect((await hook(second.body.webhook_url, "{}")).status).toBe(202);
  });

  it("is 404 for another account's or end-user's task, and 401 without a key (every management endpoint)", async () => {
    const owner = freshUser();
    const task = await newTask({ userId: owner });
    await enable(task.id, owner);
    for (const method of ["POST", "PATCH", "DELETE"]) {
      const body = method === "PATCH" ? { enabled: false } : undefined;
      expect((await webhookCall(task.id, method, { key: other.key, body })).status).toBe(404);
      expect((await webhookCall(task.id, method, { userId: freshUser(), body })).status).toBe(404);
      expect((await webhookCall(task.id, method, { key: null, userId: owner, body })).status).toBe(401);
    }
    // Untouched by all that.
    const row = await prisma().platformTask.findUniqueOrThrow({ where: { id: task.id } });
    expect(row).toMatchObject({ webhookEnabled: true, webhookTokenHash: expect.any(String) });
  });

  it("works in an end-user's scope, user_id in the body or the query", async () => {
    const owner = freshUser();
    const task = await newTask({ userId: owner });
    const viaBody = await webhookCall(task.id, "POST", { body: { user_id: owner } });
    expect(viaBody.status).toBe(200);
    expect(viaBody.body.user_id).toBe(owner);
    const accepted = await hook(viaBody.body.webhook_url, JSON.stringify({ ok: true }));
    expect(accepted.status).toBe(202);
    const run = await prisma().platformRun.findUniqueOrThrow({ where: { id: accepted.body.run_id }, include: { endUser: true } });
    expect(run.endUser?.externalId).toBe(owner);
  });
});

describe("POST /hooks/tasks/{token}", () => {
  it("starts the task's run with the JSON payload in its message, 202 {run_id, status}, no key needed", async () => {
    const task = await newTask({ body: { expected_output: "A verdict" } });
    const url = await enable(task.id);
    const accepted = await hook(url, JSON.stringify({ event: "deploy", ok: true }));
    expect(accepted.status).toBe(202);
    expect(accepted.body).toEqual({ run_id: expect.any(Number), status: expect.stringMatching(/^(queued|running|completed)$/) });
    expect(Number(accepted.headers.get("x-ratelimit-limit"))).toBeGreaterThan(0); // the IP limiter's
    const run = await runOutput(accepted.body.run_id);
    expect(run.taskId).toBe(task.id);
    expect(run.output).toBe(
      'Echo: Triage the event\n\nExpected output:\nA verdict\n\nWebhook payload:\n{\n  "event": "deploy",\n  "ok": true\n}',
    );
    const api = await platform.call(`/runs/${run.id}`, { key: account.key });
    expect(api.body).toMatchObject({ task_id: task.id, status: "completed" });
    // Recorded as a fire of the webhook trigger.
    const triggerId = (await platform.call(`/tasks/${task.id}/triggers`, { key: account.key })).body.data[0].id;
    const fires = await platform.call(`/tasks/${task.id}/triggers/${triggerId}/fires`, { key: account.key });
    expect(fires.body.data[0]).toMatchObject({ outcome: "started", run_id: run.id });
  });

  it("passes any other content type as text, and an empty body as (empty)", async () => {
    const task = await newTask();
    const url = await enable(task.id);
    const text = await hook(url, "name=ada&role=admin", { "content-type": "application/x-www-form-urlencoded" });
    expect(text.status).toBe(202);
    expect((await runOutput(text.body.run_id)).output).toBe("Echo: Triage the event\n\nWebhook payload:\nname=ada&role=admin");
    const plain = await hook(url, "not { json", { "content-type": "application/json" });
    expect((await runOutput(plain.body.run_id)).output).toBe("Echo: Triage the event\n\nWebhook payload:\nnot { json");
    const empty = await hook(url, undefined, {});
    expect(empty.status).toBe(202);
    expect((await runOutput(empty.body.run_id)).output).toBe("Echo: Triage the event\n\nWebhook payload:\n(empty)");
  });

  it("cuts a long payload with a note, and refuses a body over 256 KB with 413 in the error envelope", async () => {
    const task = await newTask();
    const url = await enable(task.id);
    const long = await hook(url, "x".repeat(200_000), { "content-type": "text/plain" });
    expect(long.status).toBe(202);
    const run = await prisma().platformRun.findUniqueOrThrow({ where: { id: long.body.run_id } });
    const runs = await prisma().platformRun.count({ where: { taskId: task.id } });
    expect(run.taskId).toBe(task.id);
    const message = (await platform.call(`/runs/${run.id}/messages`, { key: account.key })).body;
    expect(JSON.stringify(message)).toContain("[… payload truncated: 64000 of 200000 characters shown]");

    // The server stops reading an oversized body and may drop the connection afterwards.
    const tooBig = await hook(url, "y".repeat(256 * 1024 + 1), { "content-type": "text/plain", connection: "close" });
    expect(tooBig.status).toBe(413);
    expect(tooBig.body.error).toMatchObject({ type: "payload_too_large", code: 413, request_id: expect.stringMatching(/^req_/) });
    expect(await prisma().platformRun.count({ where: { taskId: task.id } })).toBe(runs);
  });

  it("is 404 for an unknown token, in the error envelope", async () => {
    const unknown = await hook(`${platform.baseUrl}/hooks/tasks/${"A".repeat(43)}`, "{}");
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ type: "not_found", code: 404 });
    expect((await hook(`${platform.baseUrl}/hooks/tasks/short`, "{}")).status).toBe(404);
  });

  it("replays the first call's run for the same Idempotency-Key", async () => {
    const task = await newTask();
    const url = await enable(task.id);
    const headers = { "content-type": "application/json", "idempotency-key": "delivery-1" };
    const first = await hook(url, '{"a":1}', headers);
    const again = await hook(url, '{"a":1}', headers);
    expect(first.status).toBe(202);
    expect(again.status).toBe(202);
    expect(again.body.run_id).toBe(first.body.run_id);
    expect(again.headers.get("idempotent-replay")).toBe("true");
    const reused = await hook(url, '{"a":2}', headers);
    expect(reused.status).toBe(409);
    expect(reused.body.error.error_code).toBe("idempotency_key_reuse");
    expect(await prisma().platformRun.count({ where: { taskId: task.id } })).toBe(1);
  });

  it("passes a zero balance's 402 through, records the refusal and starts nothing", async () => {
    const poor = await platform.signup({ require_end_user_id: false });
    await prisma().platformAccount.update({ where: { id: poor.id }, data: { emailVerifiedAt: new Date() } });
    const task = await newTask({ key: poor.key });
    const enabled = await webhookCall(task.id, "POST", { key: poor.key });
    const { balance_micros } = (await platform.call("/billing/balance", { key: poor.key })).body;
    await addLedgerEntry(prisma(), poor.id, { type: "adjustment", amountMicros: BigInt(-balance_micros), description: "test: empty" });
    const broke = await hook(enabled.body.webhook_url, '{"spend":true}', { "content-type": "application/json", "idempotency-key": "broke" });
    expect(broke.status).toBe(402);
    expect(broke.body.error).toMatchObject({ type: "billing_error", error_code: "TOKEN_BALANCE_DEPLETED" });
    expect(await prisma().platformRun.count({ where: { accountId: poor.id } })).toBe(0);
    const fires = await platform.call(`/tasks/${task.id}/triggers/${enabled.body.trigger_id}/fires`, { key: poor.key });
    expect(fires.body.data[0]).toMatchObject({ outcome: "refused", run_id: null, reason: expect.stringContaining("billing_error") });
    // A 402 does not bind the key: after a top-up the same delivery starts its run.
    await addLedgerEntry(prisma(), poor.id, { type: "adjustment", amountMicros: BigInt(balance_micros), description: "test: refill" });
    const retried = await hook(enabled.body.webhook_url, '{"spend":true}', { "content-type": "application/json", "idempotency-key": "broke" });
    expect(retried.status).toBe(202);
  });

  it("counts against the IP allowance (429 {detail} past it)", async () => {
    const limited = await startPlatform({ rateLimits: { ipPerMinute: 3 }, database: platform.database });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await fetch(`${limited.baseUrl}/hooks/tasks/nope`, { method: "POST", body: "{}" })).status);
      expect(statuses).toEqual([404, 404, 404, 429]);
    } finally {
      await limited.close();
    }
  });
});

describe("PATCH and DELETE /tasks/{task_id}/webhook", () => {
  it("pauses (409 webhook_paused, nothing started) and resumes with the same URL, which is not shown", async () => {
    const task = await newTask();
    const url = await enable(task.id);
    const paused = await webhookCall(task.id, "PATCH", { body: { enabled: false } });
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ task_id: task.id, enabled: false });
    expect(paused.body).not.toHaveProperty("webhook_url");
    expect((await platform.call(`/tasks/${task.id}`, { key: account.key })).body.webhook_enabled).toBe(false);
    const trigger = (await platform.call(`/tasks/${task.id}/triggers`, { key: account.key })).body.data[0];
    expect(trigger).toMatchObject({ type: "webhook", enabled: false });

    const refused = await hook(url, "{}");
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ type: "conflict_error", error_code: "webhook_paused" });
    expect(await prisma().platformRun.count({ where: { taskId: task.id } })).toBe(0);

    const resumed = await webhookCall(task.id, "PATCH", { body: { enabled: true } });
    expect(resumed.body.enabled).toBe(true);
    expect((await hook(url, "{}")).status).toBe(202);
  });

  it("validates enabled (required bool), and is 404 for a task without a webhook", async () => {
    const task = await newTask();
    const missing = await webhookCall(task.id, "PATCH", { body: {} });
    expect(missing.status).toBe(422);
    expect(missing.body.error.message).toContain("enabled");
    expect((await webhookCall(task.id, "PATCH", { body: { enabled: "yes" } })).status).toBe(422);
    expect((await webhookCall(task.id, "PATCH", { body: { enabled: true } })).status).toBe(404);
    expect((await webhookCall(task.id, "DELETE")).status).toBe(404);
    expect((await platform.call(`/tasks/${task.id}`, { key: account.key })).body.webhook_enabled).toBe(false);
  });

  it("deletes the webhook and its trigger: 204, the URL 404s, webhook_enabled off", async () => {
    const task = await newTask();
    const url = await enable(task.id);
    expect((await webhookCall(task.id, "DELETE")).status).toBe(204);
    expect((await hook(url, "{}")).status).toBe(404);
    expect((await platform.call(`/tasks/${task.id}`, { key: account.key })).body.webhook_enabled).toBe(false);
    expect((await platform.call(`/tasks/${task.id}/triggers`, { key: account.key })).body.data).toEqual([]);
    const row = await prisma().platformTask.findUniqueOrThrow({ where: { id: task.id } });
    expect(row.webhookTokenHash).toBeNull();
  });
});

describe("the webhook as a trigger, and webhook: true on POST /tasks", () => {
  it("POST /tasks with webhook: true returns webhook_url once, and the trigger is listed", async () => {
    const task = await newTask({ body: { webhook: true, schedule: "0 9 * * *" } });
    expect(task.webhook_enabled).toBe(true);
    expect(task.webhook_url).toMatch(/\/hooks\/tasks\/[A-Za-z0-9_-]{43}$/);
    const read = await platform.call(`/tasks/${task.id}`, { key: account.key });
    expect(read.body).not.toHaveProperty("webhook_url");
    const listed = (await platform.call(`/tasks/${task.id}/triggers`, { key: account.key })).body.data;
    expect(listed.map((trigger: { type: string }) => trigger.type).sort()).toEqual(["schedule", "webhook"]);
    const webhook = listed.find((trigger: { type: string }) => trigger.type === "webhook");
    expect(webhook).toMatchObject({ id: expect.stringMatching(/^webhook_\d+$/), enabled: true, task_id: task.id, next_run_at: null });
    expect(webhook).not.toHaveProperty("webhook_url");
    const all = await platform.call("/triggers", { key: account.key, query: { type: "webhook", task_id: task.id } });
    expect(all.body.data).toEqual([webhook]);
    expect((await hook(task.webhook_url, '{"from":"create"}')).status).toBe(202);
  });

  it("POST /tasks/{id}/triggers type webhook = POST /tasks/{id}/webhook; PATCH enabled and DELETE act on the webhook", async () => {
    const task = await newTask();
    const created = await platform.call(`/tasks/${task.id}/triggers`, { key: account.key, body: { type: "webhook" } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ id: expect.stringMatching(/^webhook_\d+$/), type: "webhook", enabled: true, webhook_url: expect.any(String) });
    expect((await platform.call(`/tasks/${task.id}/triggers`, { key: account.key, body: { type: "webhook", cron: "* * * * *" } })).status).toBe(422);
    const url = created.body.webhook_url as string;
    const path = `/tasks/${task.id}/triggers/${created.body.id}`;

    const paused = await platform.call(path, { key: account.key, method: "PATCH", body: { enabled: false } });
    expect(paused.status).toBe(200);
    expect(paused.body.enabled).toBe(false);
    expect((await webhookCall(task.id, "POST", {})).body.trigger_id).toBe(created.body.id); // rotates and enables
    expect((await hook(url, "{}")).status).toBe(404);
    expect((await platform.call(path, { key: account.key, method: "PATCH", body: { cron: "* * * * *" } })).status).toBe(422);

    expect((await platform.call(path, { key: account.key, method: "DELETE" })).status).toBe(204);
    expect((await platform.call(`/tasks/${task.id}`, { key: account.key })).body.webhook_enabled).toBe(false);
    expect(await prisma().platformTask.findUniqueOrThrow({ where: { id: task.id } })).toMatchObject({ webhookTokenHash: null });
  });
});
