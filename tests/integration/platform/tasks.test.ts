import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addLedgerEntry } from "@/server/platform/repositories/billing";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";
import { pollFor } from "../../helpers/poll";
import { readFrames, textOf } from "../../helpers/sse";

let platform: PlatformHarness;
let account: Account; // require_end_user_id off
let other: Account;
let strict: Account; // the API signup default: on
let agentU1: number; // u1's agent, default_permission_mode approval
let agentTop: number; // the account level's agent
let taskU1: number; // u1's task, saved mode autonomous

const prisma = () => platform.database.prisma;

beforeAll(async () => {
  platform = await startPlatform();
  account = await platform.signup({ require_end_user_id: false });
  other = await platform.signup({ require_end_user_id: false });
  strict = await platform.signup();
  agentU1 = (await platform.call("/agents", { key: account.key, body: { name: "Worker", user_id: "u1" } })).body.id;
  agentTop = (await platform.call("/agents", { key: account.key, body: { name: "Top", default_permission_mode: "autonomous" } })).body.id;
  taskU1 = (await createTask({ teammate_id: agentU1, instructions: "Summarise the news", permission_mode: "autonomous" }, { user_id: "u1" })).body.id;
});
afterAll(() => platform.close());

function createTask(body: Record<string, unknown>, query?: Record<string, string>, key: string | null = account.key) {
  return platform.call("/tasks", { key, body, query });
}

const runTask = (taskId: number, body: Record<string, unknown> = {}, options: { query?: Record<string, string>; key?: string | null; headers?: Record<string, string> } = {}) =>
  platform.call(`/tasks/${taskId}/runs`, {
    key: options.key === undefined ? account.key : options.key,
    body: { stream: false, ...body },
    query: options.query,
    headers: options.headers,
  });

async function waitForStatus(runId: number, statuses: string[], query: Record<string, string> = { user_id: "u1" }, key = account.key) {
  return platform.waitForRun(key, runId, statuses, query);
}

const waitForMail = (where: { accountId: number; subject?: { contains: string } }) =>
  pollFor(() => prisma().platformMail.findFirst({ where: { ...where, kind: "task_run_finished" }, orderBy: { id: "desc" } }), "the task's mail");

const expectField = (response: { status: number; body: any }, field: string) => {
  expect(response.status).toBe(422);
  expect(response.body.error.type).toBe("validation_error");
  expect(response.body.error.message).toContain(field);
};

describe("POST /tasks", () => {
  it("creates a task with its defaults: a name from the instructions, the agent's permission mode", async () => {
    const { status, body } = await createTask({ teammate_id: agentU1, instructions: "Check the inbox every morning and file what matters today" }, { user_id: "u1" });
    expect(status).toBe(201);
    expect(body).toEqual({
      id: expect.any(Number),
      teammate_id: agentU1,
      user_id: "u1",
      name: "Check the inbox every morning and file what…",
      instructions: "Check the inbox every morning and file what matters today",
      tools: [],
      expected_output: null,
      goals: null,
      email_notifications: false,
      permission_mode: "approval",
      webhook_enabled: false,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
  });

  it("stores every field it is given, user_id from the body", async () => {
    const { status, body } = await createTask({
      teammate_id: agentU1,
      user_id: "u1",
      name: "Digest",
      instructions: "Write the digest",
      tools: ["search"],
      expected_output: "Five bullets",
      goals: "Be brief",
      email_notifications: true,
      permission_mode: "plan",
    });
    expect(status).toBe(201);
    expect(body).toMatchObject({
      name: "Digest",
      tools: ["search"],
      expected_output: "Five bullets",
      goals: "Be brief",
      email_notifications: true,
      permission_mode: "plan",
      user_id: "u1",
    });
  });

  it("answers 422 naming the field: blank instructions, no teammate_id, bad cron, bad timezone", async () => {
    expectField(await createTask({ teammate_id: agentTop, instructions: "   " }), "instructions");
    expectField(await createTask({ instructions: "x" }), "teammate_id");
    expectField(await createTask({ teammate_id: agentTop, instructions: "x", schedule: "* * *" }), "schedule");
    expectField(await createTask({ teammate_id: agentTop, instructions: "x", schedule: "0 0 9 * * 1" }), "schedule");
    expectField(await createTask({ teammate_id: agentTop, instructions: "x", schedule: "61 * * * *" }), "schedule");
    expectField(await createTask({ teammate_id: agentTop, instructions: "x", schedule: "0 9 * * 1", schedule_timezone: "Mars/Olympus" }), "schedule_timezone");
    expectField(await createTask({ teammate_id: agentTop, instructions: "x", schedule_timezone: "Europe/Paris" }), "schedule_timezone");
    expectField(await createTask({ teammate_id: agentTop, instructions: "x", permission_mode: "yolo" }), "permission_mode");
  });

  it("creates the task with its webhook on webhook: true, the URL in this response only (task-webhooks.test.ts)", async () => {
    const webhook = await createTask({ teammate_id: agentTop, instructions: "x", webhook: true });
    expect(webhook.status).toBe(201);
    expect(webhook.body).toMatchObject({ webhook_enabled: true, webhook_url: expect.stringContaining("/api/v2/hooks/tasks/") });
    const read = await platform.call(`/tasks/${webhook.body.id}`, { key: account.key });
    expect(read.body.webhook_enabled).toBe(true);
    expect(read.body).not.toHaveProperty("webhook_url");
  });

  it("makes schedule and schedule_timezone the task's schedule trigger", async () => {
    const scheduled = await createTask({ teammate_id: agentTop, instructions: "x", schedule: "0 9 * * 1-5", schedule_timezone: "Europe/Paris" });
    expect(scheduled.status).toBe(201);
    const triggers = await platform.call(`/tasks/${scheduled.body.id}/triggers`, { key: account.key });
    expect(triggers.body.data).toEqual([
      expect.objectContaining({ type: "schedule", cron: "0 9 * * 1-5", timezone: "Europe/Paris", enabled: true, next_run_at: expect.any(String) }),
    ]);
    const utc = await createTask({ teammate_id: agentTop, instructions: "x", schedule: "30 6 * * *" });
    expect((await platform.call(`/tasks/${utc.body.id}/triggers`, { key: account.key })).body.data[0]).toMatchObject({ timezone: "UTC" });
  });

  it("answers 404 for an agent that is unknown, another end-user's, another account's or archived", async () => {
    expect((await createTask({ teammate_id: 999_999, instructions: "x" })).status).toBe(404);
    expect((await createTask({ teammate_id: agentU1, instructions: "x" }, { user_id: "u2" })).status).toBe(404);
    expect((await createTask({ teammate_id: agentU1, instructions: "x" })).status).toBe(404);
    expect((await createTask({ teammate_id: agentU1, instructions: "x" }, { user_id: "u1" }, other.key)).status).toBe(404);
    const archived = (await platform.call("/agents", { key: account.key, body: { name: "Gone" } })).body.id;
    await platform.call(`/agents/${archived}`, { key: account.key, method: "DELETE" });
    expect((await createTask({ teammate_id: archived, instructions: "x" })).status).toBe(404);
  });

  it("answers 401 without a key, and 422 end_user_id_required without user_id on a strict account", async () => {
    expect((await createTask({ teammate_id: agentTop, instructions: "x" }, undefined, null)).status).toBe(401);
    const refused = await createTask({ teammate_id: 1, instructions: "x" }, undefined, strict.key);
    expect(refused.status).toBe(422);
    expect(refused.body.error.error_code).toBe("end_user_id_required");
  });
});

describe("GET /tasks and GET /tasks/{task_id}", () => {
  it("lists the scope's tasks oldest first, filtered by teammate_id, paged with starting_after", async () => {
    const scope = { user_id: "lister" };
    const agent = (await platform.call("/agents", { key: account.key, body: { name: "L" }, query: scope })).body.id;
    const second = (await platform.call("/agents", { key: account.key, body: { name: "M" }, query: scope })).body.id;
    const ids: number[] = [];
    for (const [teammate, text] of [[agent, "one"], [agent, "two"], [second, "three"]] as const) {
      ids.push((await createTask({ teammate_id: teammate, instructions: text }, scope)).body.id);
    }
    const all = await platform.call("/tasks", { key: account.key, query: scope });
    expect(all.status).toBe(200);
    expect(all.body.data.map((task: { id: number }) => task.id)).toEqual(ids);
    expect(all.body.has_more).toBe(false);
    const page = await platform.call("/tasks", { key: account.key, query: { ...scope, limit: 1, starting_after: ids[0]! } });
    expect(page.body).toMatchObject({ data: [{ id: ids[1] }], has_more: true });
    const filtered = await platform.call("/tasks", { key: account.key, query: { ...scope, teammate_id: second } });
    expect(filtered.body.data.map((task: { id: number }) => task.id)).toEqual([ids[2]]);
    expectField(await platform.call("/tasks", { key: account.key, query: { ...scope, limit: 0 } }), "limit");
  });

  it("shows nothing of a scope to another end-user, the account level or another account", async () => {
    const ids = (body: { data: { id: number }[] }) => body.data.map((task) => task.id);
    expect(ids((await platform.call("/tasks", { key: account.key, query: { user_id: "u2" } })).body)).not.toContain(taskU1);
    expect(ids((await platform.call("/tasks", { key: account.key })).body)).not.toContain(taskU1);
    expect(ids((await platform.call("/tasks", { key: other.key, query: { user_id: "u1" } })).body)).toEqual([]);
    expect((await platform.call("/tasks", { key: null })).status).toBe(401);
  });

  it("gets a task in its scope only", async () => {
    const got = await platform.call(`/tasks/${taskU1}`, { key: account.key, query: { user_id: "u1" } });
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ id: taskU1, teammate_id: agentU1, user_id: "u1", permission_mode: "autonomous" });
    expect((await platform.call(`/tasks/${taskU1}`, { key: account.key, query: { user_id: "u2" } })).status).toBe(404);
    expect((await platform.call(`/tasks/${taskU1}`, { key: account.key })).status).toBe(404);
    expect((await platform.call(`/tasks/${taskU1}`, { key: other.key, query: { user_id: "u1" } })).status).toBe(404);
    expect((await platform.call(`/tasks/${taskU1}`, { key: null })).status).toBe(401);
    expectField(await platform.call("/tasks/abc", { key: account.key }), "task_id");
  });
});

describe("PATCH /tasks/{task_id}", () => {
  it("changes the given fields, clears expected_output and goals with null, leaves the rest", async () => {
    const created = (await createTask({ teammate_id: agentTop, instructions: "Old", expected_output: "A table", goals: "Speed" })).body;
    const patched = await platform.call(`/tasks/${created.id}`, {
      key: account.key,
      method: "PATCH",
      body: { name: "Renamed", instructions: "New", tools: ["calculator"], expected_output: null, goals: null, email_notifications: true, permission_mode: "approval" },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      id: created.id,
      name: "Renamed",
      instructions: "New",
      tools: ["calculator"],
      expected_output: null,
      goals: null,
      email_notifications: true,
      permission_mode: "approval",
      teammate_id: agentTop,
    });
    const unchanged = await platform.call(`/tasks/${created.id}`, { key: account.key, method: "PATCH", body: {} });
    expect(unchanged.body).toMatchObject({ name: "Renamed", instructions: "New" });
  });

  it("answers 422 naming the field, 404 outside the scope, 401 without a key", async () => {
    const patch = (body: unknown, query?: Record<string, string>, key: string | null = account.key) =>
      platform.call(`/tasks/${taskU1}`, { key, method: "PATCH", body, query });
    expectField(await patch({ instructions: " " }, { user_id: "u1" }), "instructions");
    expectField(await patch({ tools: "search" }, { user_id: "u1" }), "tools");
    expect((await patch({ name: "x" }, { user_id: "u2" })).status).toBe(404);
    expect((await patch({ name: "x" })).status).toBe(404);
    expect((await patch({ name: "x" }, { user_id: "u1" }, other.key)).status).toBe(404);
    expect((await patch({ name: "x" }, { user_id: "u1" }, null)).status).toBe(401);
  });
});

describe("POST /tasks/{task_id}/runs", () => {
  it("streams by default: the task's instructions, expected output and goals are the message", async () => {
    const task = (await createTask({ teammate_id: agentTop, instructions: "Count the sheep", expected_output: "A number", goals: "Sleep" })).body;
    const response = await platform.request(`/tasks/${task.id}/runs`, {
      method: "POST",
      headers: { authorization: `Bearer ${account.key}`, "content-type": "application/json" },
      body: "{}",
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/text\/event-stream/);
    const frames = await readFrames(response, { until: (frame) => frame.data.type === "done" });
    expect(textOf(frames)).toBe("Echo: Count the sheep\n\nExpected output:\nA number\n\nGoals:\nSleep");
    expect(frames.at(-1)!.data).toMatchObject({ type: "done", completion_state: "completed" });
  });

  it("answers stream=false with the run: task_id, the task's agent and scope, the task's saved mode", async () => {
    const started = await runTask(taskU1);
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ status: "running", task_id: taskU1, teammate_id: agentU1, user_id: "u1", permission_mode: "autonomous" });
    const done = await waitForStatus(started.body.id, ["completed", "failed"]);
    expect(done).toMatchObject({ status: "completed", output: "Echo: Summarise the news", task_id: taskU1 });
    // Named explicitly, the scope and the mode are the caller's.
    const explicit = await runTask(taskU1, { user_id: "u1", permission_mode: "approval", max_turns: 5, metadata: { from: "test" } });
    expect(explicit.body).toMatchObject({ task_id: taskU1, permission_mode: "approval", max_turns: 5, metadata: { from: "test" }, human_in_the_loop: true });
    await waitForStatus(explicit.body.id, ["completed", "failed"]);
  });

  it("runs an account-level task at the account level", async () => {
    const task = (await createTask({ teammate_id: agentTop, instructions: "Top-level work" })).body;
    expect(task.permission_mode).toBe("autonomous");
    const started = await runTask(task.id);
    expect(started.body).toMatchObject({ task_id: task.id, user_id: null, teammate_id: agentTop });
    expect((await waitForStatus(started.body.id, ["completed"], {})).output).toBe("Echo: Top-level work");
  });

  it("lists the task's runs under GET /runs?task_id", async () => {
    const task = (await createTask({ teammate_id: agentU1, instructions: "Listed", permission_mode: "autonomous" }, { user_id: "u1" })).body;
    const first = (await runTask(task.id)).body.id;
    const second = (await runTask(task.id)).body.id;
    await waitForStatus(first, ["completed"]);
    await waitForStatus(second, ["completed"]);
    const listed = await platform.call("/runs", { key: account.key, query: { user_id: "u1", task_id: task.id } });
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((run: { id: number }) => run.id)).toEqual([second, first]);
    expect(listed.body.data.every((run: { task_id: number }) => run.task_id === task.id)).toBe(true);
  });

  it("replays an Idempotency-Key as the same run, and refuses the key for another request", async () => {
    const headers = { "idempotency-key": `task-run-${Date.now()}` };
    const first = await runTask(taskU1, {}, { headers });
    expect(first.status).toBe(200);
    const again = await runTask(taskU1, {}, { headers });
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replay")).toBe("true");
    expect(again.body.id).toBe(first.body.id);
    expect(await prisma().platformRun.count({ where: { taskId: taskU1, id: { gte: first.body.id } } })).toBe(1);
    const reuse = await runTask(taskU1, { max_turns: 3 }, { headers });
    expect(reuse.status).toBe(409);
    expect(reuse.body.error.error_code).toBe("idempotency_key_reuse");
    await waitForStatus(first.body.id, ["completed"]);
  });

  it("answers 404 for another end-user, another account or an unknown task, 401 without a key", async () => {
    const before = await prisma().platformRun.count({ where: { taskId: taskU1 } });
    expect((await runTask(taskU1, { user_id: "u2" })).status).toBe(404);
    expect((await runTask(taskU1, {}, { query: { user_id: "u2" } })).status).toBe(404);
    expect((await runTask(taskU1, {}, { key: other.key })).status).toBe(404);
    expect((await runTask(taskU1, { user_id: "u1" }, { key: other.key })).status).toBe(404);
    expect((await runTask(999_999)).status).toBe(404);
    expect((await runTask(taskU1, {}, { key: null })).status).toBe(401);
    expect(await prisma().platformRun.count({ where: { taskId: taskU1 } })).toBe(before);
  });

  it("validates like POST /runs: 422 naming the field, 400 for human_in_the_loop false outside autonomous", async () => {
    expectField(await runTask(taskU1, { max_turns: 0 }), "max_turns");
    expectField(await runTask(taskU1, { permission_mode: "yolo" }), "permission_mode");
    expectField(await runTask(taskU1, { output_schema: { type: "string" } }), "output_schema");
    expectField(await runTask(taskU1, { model: "no-such-model" }), "model");
    const hitl = await runTask(taskU1, { permission_mode: "approval", human_in_the_loop: false });
    expect(hitl.status).toBe(400);
  });

  it("on a strict account, an omitted user_id inherits an end-user's task's scope; an account-level task still needs one", async () => {
    const agent = (await platform.call("/agents", { key: strict.key, body: { name: "S" }, query: { user_id: "s1" } })).body.id;
    const task = (await createTask({ teammate_id: agent, instructions: "Strict" }, { user_id: "s1" }, strict.key)).body.id;
    const inherited = await runTask(task, { permission_mode: "autonomous" }, { key: strict.key });
    expect(inherited.status).toBe(200);
    expect(inherited.body).toMatchObject({ task_id: task, user_id: "s1" });
    const ran = await runTask(task, { permission_mode: "autonomous" }, { key: strict.key, query: { user_id: "s1" } });
    expect(ran.status).toBe(200);
    expect(ran.body).toMatchObject({ task_id: task, user_id: "s1" });
    expect((await runTask(task, {}, { key: strict.key, query: { user_id: "s2" } })).status).toBe(404);
    await waitForStatus(inherited.body.id, ["completed"], { user_id: "s1" }, strict.key);
    await waitForStatus(ran.body.id, ["completed"], { user_id: "s1" }, strict.key);

    // An account-level task (made before strict mode was turned on) would run in the account scope.
    const later = await platform.signup({ require_end_user_id: false });
    const top = (await platform.call("/agents", { key: later.key, body: { name: "T", default_permission_mode: "autonomous" } })).body.id;
    const topTask = (await createTask({ teammate_id: top, instructions: "Top" }, undefined, later.key)).body.id;
    expect((await platform.call("/settings", { key: later.key, method: "PATCH", body: { require_end_user_id: true } })).status).toBe(200);
    const refused = await runTask(topTask, {}, { key: later.key });
    expect(refused.status).toBe(422);
    expect(refused.body.error.error_code).toBe("end_user_id_required");
    expect(await prisma().platformRun.count({ where: { taskId: topTask } })).toBe(0);
  });

  it("is admitted like POST /runs: 402 at a zero balance and at the end-user's run cap, creating no run", async () => {
    const poor = await platform.signup({ require_end_user_id: false });
    await prisma().platformAccount.update({ where: { id: poor.id }, data: { emailVerifiedAt: new Date() } });
    const agent = (await platform.call("/agents", { key: poor.key, body: { name: "P", default_permission_mode: "autonomous" }, query: { user_id: "p1" } })).body.id;
    const task = (await createTask({ teammate_id: agent, instructions: "Spend" }, { user_id: "p1" }, poor.key)).body.id;
    const { balance_micros } = (await platform.call("/billing/balance", { key: poor.key })).body;
    await addLedgerEntry(prisma(), poor.id, { type: "adjustment", amountMicros: BigInt(-balance_micros), description: "test: empty" });
    const broke = await runTask(task, {}, { key: poor.key, headers: { "idempotency-key": "task-broke" } });
    expect(broke.status).toBe(402);
    expect(broke.body.error.error_code).toBe("TOKEN_BALANCE_DEPLETED");
    expect(await prisma().platformRun.count({ where: { accountId: poor.id } })).toBe(0);

    // A verified account without caps is admitted by the one-statement fast path: it writes task_id too.
    await addLedgerEntry(prisma(), poor.id, { type: "adjustment", amountMicros: BigInt(balance_micros), description: "test: refill" });
    const admitted = await runTask(task, {}, { key: poor.key, headers: { "idempotency-key": "task-broke" } });
    expect(admitted.status).toBe(200);
    expect(admitted.headers.get("idempotent-replay")).toBeNull();
    expect(admitted.body).toMatchObject({ task_id: task, user_id: "p1" });
    expect(await prisma().platformRun.findUniqueOrThrow({ where: { id: admitted.body.id } })).toMatchObject({ taskId: task });
    await waitForStatus(admitted.body.id, ["completed"], { user_id: "p1" }, poor.key);
    expect((await platform.call("/settings", { key: poor.key, method: "PATCH", body: { per_end_user_run_limit: 1 } })).status).toBe(200);
    const capped = await runTask(task, {}, { key: poor.key });
    expect(capped.status).toBe(402);
    expect(capped.body.error.error_code).toBe("RUN_LIMIT_REACHED");
    expect(await prisma().platformRun.count({ where: { accountId: poor.id } })).toBe(1);
  });
});

describe("email_notifications", () => {
  it("mails the account owner when a run of the task completes, with its output", async () => {
    const task = (await createTask({ teammate_id: agentTop, name: "Mailer", instructions: "Say hi", email_notifications: true })).body;
    const run = (await runTask(task.id)).body;
    await waitForStatus(run.id, ["completed"], {});
    const mail = await waitForMail({ accountId: account.id, subject: { contains: `run ${run.id} completed` } });
    expect(mail).toMatchObject({ to: account.email, subject: `Task "Mailer": run ${run.id} completed` });
    expect(mail.text).toContain("Echo: Say hi");
  });

  it("mails when it fails, and sends nothing for a task without email_notifications", async () => {
    const failing = (await createTask({ teammate_id: agentTop, name: "Breaks", instructions: "::fail the printer is on fire", email_notifications: true })).body;
    const failed = (await runTask(failing.id)).body;
    expect((await waitForStatus(failed.id, ["failed", "completed"], {})).status).toBe("failed");
    const mail = await waitForMail({ accountId: account.id, subject: { contains: `run ${failed.id} failed` } });
    expect(mail.text).toContain("the printer is on fire");

    const quiet = (await createTask({ teammate_id: agentTop, instructions: "Quietly" })).body;
    const run = (await runTask(quiet.id)).body;
    await waitForStatus(run.id, ["completed"], {});
    await platform.runtime().then((runtime) => runtime.worker?.idle());
    expect(await prisma().platformMail.count({ where: { accountId: account.id, subject: { contains: `run ${run.id} ` } } })).toBe(0);
  });
});

describe("DELETE /tasks/{task_id}", () => {
  it("deletes the task (404 after), its runs keep their task_id; 404 outside the scope, 401 without a key", async () => {
    const task = (await createTask({ teammate_id: agentU1, instructions: "Short-lived", permission_mode: "autonomous" }, { user_id: "u1" })).body;
    const run = (await runTask(task.id)).body;
    await waitForStatus(run.id, ["completed"]);
    const remove = (query?: Record<string, string>, key: string | null = account.key) =>
      platform.call(`/tasks/${task.id}`, { key, method: "DELETE", query });
    expect((await remove({ user_id: "u2" })).status).toBe(404);
    expect((await remove()).status).toBe(404);
    expect((await remove({ user_id: "u1" }, other.key)).status).toBe(404);
    expect((await remove({ user_id: "u1" }, null)).status).toBe(401);
    const deleted = await remove({ user_id: "u1" });
    expect(deleted.status).toBe(204);
    expect((await platform.call(`/tasks/${task.id}`, { key: account.key, query: { user_id: "u1" } })).status).toBe(404);
    expect((await remove({ user_id: "u1" })).status).toBe(404);
    expect((await runTask(task.id)).status).toBe(404);
    const kept = await platform.call(`/runs/${run.id}`, { key: account.key, query: { user_id: "u1" } });
    expect(kept.body).toMatchObject({ id: run.id, task_id: task.id });
  });
});
