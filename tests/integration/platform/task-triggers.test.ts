// Task triggers: /tasks/{id}/triggers and /triggers, and schedules that fire: an interval and a
// one-time run_at within seconds, refusals recorded, downtime under each missed_runs policy, and two
// instances through a burst of due times without a double fire.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jobIdForKey } from "@/server/platform/infrastructure/job-queue";
import { FIRE_JOB } from "@/server/platform/services/tasks/trigger-fires";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";
import { pollUntil } from "../../helpers/poll";

let platform: PlatformHarness;
let account: Account;

beforeAll(async () => {
  platform = await startPlatform({ jobPollSeconds: 0.5 });
  account = await platform.signup({ require_end_user_id: false });
});
afterAll(() => platform.close());

let counter = 0;
const freshUser = () => `trigger-user-${++counter}`;

async function newTask(key = account.key, userId?: string, harness = platform) {
  const query = userId ? { user_id: userId } : {};
  const agent = await harness.call("/agents", { key, query, body: { name: "Scheduler", default_permission_mode: "autonomous" } });
  const task = await harness.call("/tasks", { key, query, body: { teammate_id: agent.body.id, instructions: "Summarise the pipeline" } });
  if (task.status !== 201) throw new Error(`POST /tasks: ${task.status} ${JSON.stringify(task.body)}`);
  return task.body.id as number;
}

async function addTrigger(taskId: number, body: Record<string, unknown>, key = account.key, userId?: string) {
  return platform.call(`/tasks/${taskId}/triggers`, { key, query: userId ? { user_id: userId } : {}, body: { type: "schedule", ...body } });
}

async function fires(taskId: number, triggerId: string, harness = platform, key = account.key) {
  const response = await harness.call(`/tasks/${taskId}/triggers/${triggerId}/fires`, { key, query: { limit: 100 } });
  expect(response.status).toBe(200);
  return response.body.data as { due_at: string; outcome: string; run_id: number | null; reason: string | null }[];
}

const until = <T>(read: () => Promise<T>, done: (value: T) => boolean) => pollUntil(read, done, "the trigger's fires");

/** The fire job of `data` once it has run (completed, with the handler's result as output). */
async function fireJobDone(data: { triggerId: number; revision: number; dueAt: string }, key = `${data.triggerId}:${data.revision}:${data.dueAt}`) {
  const { jobs } = await platform.runtime();
  return pollUntil(() => jobs.inspect(FIRE_JOB, jobIdForKey(FIRE_JOB, key)), (job) => job?.state === "completed", `the fire job ${key}`);
}

describe("POST /tasks/{task_id}/triggers", () => {
  it("creates a cron schedule in a time zone, with its next due time", async () => {
    const taskId = await newTask();
    const created = await addTrigger(taskId, { cron: "0 9 * * 1-5", timezone: "Europe/Berlin" });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      id: expect.stringMatching(/^schedule_\d+$/),
      type: "schedule",
      task_id: taskId,
      enabled: true,
      cron: "0 9 * * 1-5",
      timezone: "Europe/Berlin",
      interval_seconds: null,
      run_at: null,
      missed_runs: "latest",
      max_lateness_seconds: 3600,
      retired: false,
    });
    const next = new Date(created.body.next_run_at);
    expect(next.getTime()).toBeGreaterThan(Date.now());
    // 09:00 in Berlin is 07:00 or 08:00 UTC.
    expect([7, 8]).toContain(next.getUTCHours());
  });

  it("reads a naive run_at in the trigger's zone", async () => {
    const taskId = await newTask();
    const year = new Date().getUTCFullYear() + 1;
    const created = await addTrigger(taskId, { run_at: `${year}-06-01T09:00:00`, timezone: "America/New_York" });
    expect(created.status).toBe(201);
    expect(created.body.run_at).toBe(`${year}-06-01T13:00:00.000Z`);
    expect(created.body.next_run_at).toBe(`${year}-06-01T13:00:00.000Z`);
  });

  it("refuses what cannot be a schedule with 422 naming the field", async () => {
    const taskId = await newTask();
    for (const [body, field] of [
      [{ cron: "0 9 * * *", interval_seconds: 60 }, "interval_seconds"],
      [{}, "cron"],
      [{ cron: "not a cron" }, "cron"],
      [{ cron: "0 0 9 * * *" }, "cron"],
      [{ cron: "0 9 * * *", timezone: "Mars/Olympus" }, "timezone"],
      [{ interval_seconds: 1 }, "interval_seconds"],
      [{ run_at: "2020-01-01T00:00:00Z" }, "run_at"],
      [{ run_at: "tomorrow" }, "run_at"],
      [{ cron: "0 9 * * *", missed_runs: "sometimes" }, "missed_runs"],
    ] as const) {
      const response = await addTrigger(taskId, body);
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(response.body.error.message).toContain(field);
    }
  });

  it("answers 422 app_not_configured for an app event of an app this platform has no credentials for", async () => {
    // App event triggers themselves: app-triggers.test.ts.
    const taskId = await newTask();
    const response = await addTrigger(taskId, { type: "codehost.issue_opened", trigger_config: { owner: "o", repo: "r" } });
    expect(response.status).toBe(422);
    expect(response.body.error.error_code).toBe("app_not_configured");
  });

  it("is 404 for another account's or end-user's task, and 401 without a key", async () => {
    const owner = freshUser();
    const taskId = await newTask(account.key, owner);
    const other = await platform.signup({ require_end_user_id: false });
    expect((await addTrigger(taskId, { interval_seconds: 60 }, other.key, owner)).status).toBe(404);
    expect((await addTrigger(taskId, { interval_seconds: 60 }, account.key, freshUser())).status).toBe(404);
    expect((await addTrigger(taskId, { interval_seconds: 60 }, account.key)).status).toBe(404);
    expect((await addTrigger(taskId, { interval_seconds: 60 }, account.key, owner)).status).toBe(201);
    expect((await platform.call(`/tasks/${taskId}/triggers`, { body: { type: "schedule", interval_seconds: 60 } })).status).toBe(401);
  });
});

describe("PATCH, DELETE and GET of triggers", () => {
  it("disables and enables, keeps next_run_at on other edits, reshapes, and deletes", async () => {
    const taskId = await newTask();
    const { body: trigger } = await addTrigger(taskId, { cron: "0 9 * * *", timezone: "UTC" });
    const path = `/tasks/${taskId}/triggers/${trigger.id}`;
    const edited = await platform.call(path, { key: account.key, method: "PATCH", body: { missed_runs: "all", max_lateness_seconds: 600 } });
    expect(edited.body).toMatchObject({ missed_runs: "all", max_lateness_seconds: 600, next_run_at: trigger.next_run_at });
    const disabled = await platform.call(path, { key: account.key, method: "PATCH", body: { enabled: false } });
    expect(disabled.body).toMatchObject({ enabled: false, next_run_at: null });
    const enabled = await platform.call(path, { key: account.key, method: "PATCH", body: { enabled: true } });
    expect(enabled.body).toMatchObject({ enabled: true, next_run_at: trigger.next_run_at });
    const reshaped = await platform.call(path, { key: account.key, method: "PATCH", body: { interval_seconds: 3600 } });
    expect(reshaped.body).toMatchObject({ cron: null, interval_seconds: 3600 });
    expect(Date.parse(reshaped.body.next_run_at) - Date.now()).toBeGreaterThan(3500_000);
    const once = await platform.call(path, { key: account.key, method: "PATCH", body: { run_at: new Date(Date.now() + 86_400_000).toISOString() } });
    expect(once.body).toMatchObject({ cron: null, interval_seconds: null, run_at: expect.any(String) });
    expect((await platform.call(path, { key: account.key, method: "PATCH", body: { cron: "bad" } })).status).toBe(422);
    const listed = await platform.call(`/tasks/${taskId}/triggers`, { key: account.key });
    expect(listed.body.data.map((t: any) => t.id)).toEqual([trigger.id]);
    expect((await platform.call(path, { key: account.key, method: "DELETE" })).status).toBe(204);
    expect((await platform.call(path, { key: account.key, method: "DELETE" })).status).toBe(404);
    expect((await platform.call(`/tasks/${taskId}/triggers/webhook_${trigger.id.split("_")[1]}`, { key: account.key, method: "DELETE" })).status).toBe(404);
    expect((await platform.call(`/tasks/${taskId}/triggers/nonsense`, { key: account.key, method: "DELETE" })).status).toBe(422);
  });

  it("GET /triggers lists across tasks, filtered and paged by <task_id>:<trigger_id>", async () => {
    const tenant = await platform.signup({ require_end_user_id: false });
    const [first, second] = [await newTask(tenant.key), await newTask(tenant.key)];
    const ids: string[] = [];
    for (const taskId of [first, second, first]) {
      ids.push((await addTrigger(taskId, { interval_seconds: 3600 }, tenant.key)).body.id);
    }
    const userTask = await newTask(tenant.key, "someone");
    await addTrigger(userTask, { interval_seconds: 3600 }, tenant.key, "someone");
    const all = await platform.call("/triggers", { key: tenant.key, query: { limit: 100 } });
    expect(all.body.data.map((t: any) => `${t.task_id}:${t.id}`)).toEqual([
      `${first}:${ids[0]}`,
      `${first}:${ids[2]}`,
      `${second}:${ids[1]}`,
      `${userTask}:${all.body.data[3]?.id}`,
    ]);
    const page = await platform.call("/triggers", { key: tenant.key, query: { limit: 2 } });
    expect(page.body.has_more).toBe(true);
    const rest = await platform.call("/triggers", { key: tenant.key, query: { limit: 2, starting_after: `${first}:${ids[2]}` } });
    expect(rest.body.data.map((t: any) => t.id)).toEqual([ids[1], all.body.data[3].id]);
    const mine = await platform.call("/triggers", { key: tenant.key, query: { user_id: "someone" } });
    expect(mine.body.data.map((t: any) => t.task_id)).toEqual([userTask]);
    expect((await platform.call("/triggers", { key: tenant.key, query: { task_id: second } })).body.data.map((t: any) => t.id)).toEqual([ids[1]]);
    expect((await platform.call("/triggers", { key: tenant.key, query: { type: "email" } })).body.data).toEqual([]);
    expect((await platform.call("/triggers", { key: tenant.key, query: { starting_after: "oops" } })).status).toBe(422);
    // Another account sees none of them.
    expect((await platform.call("/triggers", { key: account.key, query: { task_id: first } })).body.data).toEqual([]);
  });
});

describe("schedules that fire", () => {
  it("an interval fires within seconds, starting the task's run; disabling stops it", async () => {
    const taskId = await newTask();
    const { body: trigger } = await addTrigger(taskId, { interval_seconds: 5 });
    const list = await until(() => fires(taskId, trigger.id), (fired) => fired.some((fire) => fire.due_at === trigger.next_run_at && fire.outcome === "started"));
    const first = list.find((fire) => fire.due_at === trigger.next_run_at);
    expect(first).toMatchObject({ outcome: "started", run_id: expect.any(Number) });
    const run = await platform.call(`/runs/${first!.run_id}`, { key: account.key });
    expect(run.body).toMatchObject({ task_id: taskId });
    const byTask = await platform.call("/runs", { key: account.key, query: { task_id: taskId } });
    expect(byTask.body.data.map((r: any) => r.id)).toContain(first!.run_id);
    const after = await platform.call(`/tasks/${taskId}/triggers`, { key: account.key });
    // The next due time keeps the schedule's rhythm: a whole number of intervals after the first.
    const gap = Date.parse(after.body.data[0].next_run_at) - Date.parse(trigger.next_run_at);
    expect(gap).toBeGreaterThan(0);
    expect(gap % 5_000).toBe(0);
    // The fire queued for the next due time, under the revision that disabling replaces.
    const queued = await platform.database.prisma.platformTaskTrigger.findUniqueOrThrow({ where: { id: Number(trigger.id.split("_")[1]) } });
    await platform.call(`/tasks/${taskId}/triggers/${trigger.id}`, { key: account.key, method: "PATCH", body: { enabled: false } });
    const count = (await fires(taskId, trigger.id)).length;
    // Its job runs at that due time and finds the trigger off: nothing fires, then or later.
    const job = await fireJobDone({ triggerId: queued.id, revision: queued.revision, dueAt: queued.nextRunAt!.toISOString() });
    expect(job!.output).toEqual({ stale: true });
    expect((await fires(taskId, trigger.id)).length).toBe(count);
  });

  it("a one-time run_at fires once and retires", async () => {
    const taskId = await newTask();
    const { body: trigger } = await addTrigger(taskId, { run_at: new Date(Date.now() + 1_500).toISOString() });
    const list = await until(() => fires(taskId, trigger.id), (fired) => fired.length > 0 && fired[0]!.outcome !== "starting");
    expect(list).toEqual([expect.objectContaining({ outcome: "started", due_at: trigger.run_at })]);
    const retired = await until(
      async () => (await platform.call(`/tasks/${taskId}/triggers`, { key: account.key })).body.data[0],
      (row: any) => row.retired === true,
    );
    expect(retired).toMatchObject({ retired: true, next_run_at: null });
    const again = await platform.call(`/tasks/${taskId}/triggers/${trigger.id}`, { key: account.key, method: "PATCH", body: { enabled: true } });
    expect(again.status).toBe(422);
  });

  it("a schedule in approval mode waits for a person before a tool runs", async () => {
    const agent = await platform.call("/agents", { key: account.key, body: { name: "Careful scheduler", default_permission_mode: "approval" } });
    const task = await platform.call("/tasks", {
      key: account.key,
      body: { teammate_id: agent.body.id, instructions: '::tool calculator {"expression":"1+1"}', permission_mode: "approval" },
    });
    const taskId = task.body.id as number;
    const { body: trigger } = await addTrigger(taskId, { run_at: new Date(Date.now() + 1_000).toISOString() });
    const [fire] = await until(() => fires(taskId, trigger.id), (fired) => fired.length > 0 && fired[0]!.outcome !== "starting");
    expect(fire).toMatchObject({ outcome: "started", run_id: expect.any(Number) });
    const run = await platform.waitForRun(account.key, fire!.run_id!, ["awaiting_approval", "completed", "failed"]);
    expect(run.status).toBe("awaiting_approval");
    const requests = await platform.call(`/runs/${fire!.run_id}/permissions`, { key: account.key });
    expect(requests.body.data).toEqual([expect.objectContaining({ kind: "tool", tool_name: "calculator", status: "pending" })]);
    await platform.call(`/runs/${fire!.run_id}/cancel`, { key: account.key });
  });

  it("a fire the balance refuses is recorded with its reason", async () => {
    const broke = await platform.signup({ require_end_user_id: false });
    const taskId = await newTask(broke.key);
    await platform.database.prisma.platformAccount.update({ where: { id: broke.id }, data: { balanceMicros: 0n } });
    const { body: trigger } = await addTrigger(taskId, { run_at: new Date(Date.now() + 1_000).toISOString() }, broke.key);
    const [fire] = await until(() => fires(taskId, trigger.id, platform, broke.key), (list) => list.length > 0 && list[0]!.outcome !== "starting");
    expect(fire).toMatchObject({ outcome: "refused", run_id: null, reason: expect.stringContaining("billing") });
  });
});

describe("downtime and duplicates", () => {
  /** A trigger whose due times (every 10 minutes) were all missed: as if no worker ran for `minutes`. */
  async function missedTrigger(policy: Record<string, unknown>, minutes: number) {
    const taskId = await newTask();
    const { body: trigger } = await addTrigger(taskId, { interval_seconds: 600, ...policy });
    const id = Number(trigger.id.split("_")[1]);
    // Five minutes off the 10-minute rhythm: the last missed one is 5 minutes late, the next 5 minutes ahead.
    const dueAt = new Date(Date.now() - minutes * 60_000 + 5 * 60_000);
    const row = await platform.database.prisma.platformTaskTrigger.update({ where: { id }, data: { nextRunAt: dueAt, revision: { increment: 1 } } });
    const runtime = await platform.runtime();
    await runtime.jobs.enqueue(FIRE_JOB, { triggerId: id, revision: row.revision, dueAt: dueAt.toISOString() }, { key: `downtime-${id}` });
    // Settled: each of the five missed due times is recorded, and none is still starting (fires are
    // claimed one after another, so a partial list can look settled).
    const list = await until(() => fires(taskId, trigger.id), (fired) => fired.length === 5 && fired.every((fire) => fire.outcome !== "starting"));
    return { list, taskId, triggerId: trigger.id };
  }
  const outcomes = (list: { outcome: string }[]) => list.map((fire) => fire.outcome).sort();

  it("skip runs none of the missed due times", async () => {
    const { list } = await missedTrigger({ missed_runs: "skip" }, 50);
    expect(outcomes(list)).toEqual(["skipped", "skipped", "skipped", "skipped", "skipped"]);
    expect(list[0]!.reason).toContain("missed_runs=skip");
  });

  it("latest runs the latest missed due time", async () => {
    const { list } = await missedTrigger({ missed_runs: "latest" }, 50);
    expect(outcomes(list)).toEqual(["skipped", "skipped", "skipped", "skipped", "started"]);
    const started = list.find((fire) => fire.outcome === "started")!;
    expect(Math.max(...list.map((fire) => Date.parse(fire.due_at)))).toBe(Date.parse(started.due_at));
  });

  it("all runs every missed due time within the maximum lateness", async () => {
    const { list } = await missedTrigger({ missed_runs: "all", max_lateness_seconds: 1_800 }, 50);
    expect(outcomes(list)).toEqual(["skipped", "skipped", "started", "started", "started"]);
  });

  it("two instances fed the same burst of due times start each one once", async () => {
    const second = await startPlatform({ database: platform.database, jobPollSeconds: 0.5 });
    try {
      const taskId = await newTask();
      const { body: trigger } = await addTrigger(taskId, { interval_seconds: 5, missed_runs: "all" });
      const id = Number(trigger.id.split("_")[1]);
      // Eight due times 5 s apart, all within the last minute: each instance is handed the same fire.
      const dueAt = new Date(Date.now() - 39_000);
      const row = await platform.database.prisma.platformTaskTrigger.update({ where: { id }, data: { nextRunAt: dueAt, revision: { increment: 1 } } });
      const data = { triggerId: id, revision: row.revision, dueAt: dueAt.toISOString() };
      await Promise.all([
        (await platform.runtime()).jobs.enqueue(FIRE_JOB, data, { key: `burst-a-${id}` }),
        (await second.runtime()).jobs.enqueue(FIRE_JOB, data, { key: `burst-b-${id}` }),
      ]);
      const list = await until(() => fires(taskId, trigger.id), (fired) => fired.filter((fire) => fire.outcome === "started").length >= 8);
      // Disabled, so the interval's next due time cannot fire between the two reads below.
      const path = `/tasks/${taskId}/triggers/${trigger.id}`;
      expect((await platform.call(path, { key: account.key, method: "PATCH", body: { enabled: false } })).status).toBe(200);
      // Both instances' handlers have finished with the burst: no fire of it is still to come.
      for (const key of [`burst-a-${id}`, `burst-b-${id}`]) await fireJobDone(data, key);
      // The interval's own next fire may still be committing its run and fire as we read: read both until
      // they agree. A run without its started fire (a duplicate) never agrees, and fails here.
      const { started } = await pollUntil(
        async () => ({
          started: (await fires(taskId, trigger.id)).filter((fire) => fire.outcome === "started"),
          runs: await platform.database.prisma.platformRun.count({ where: { taskId } }),
        }),
        ({ started, runs }) => runs === started.length,
        "every run of the task to have its started fire",
      );
      expect(new Set(started.map((fire) => fire.due_at)).size).toBe(started.length);
      expect(started.length).toBeGreaterThanOrEqual(8);
      expect(list.length).toBeGreaterThanOrEqual(8);
    } finally {
      await second.close();
    }
  });
});
