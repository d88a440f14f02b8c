// client.tasks and client.triggers against a real platform: CRUD, a task run (JSON and streamed),
// schedule triggers with pause/resume, a one-time trigger's fire, GET /triggers paged by its composite
// cursor, and forUser isolation.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NotFoundError, createPlatformClient, type PlatformClient, type TriggerFire } from "@inlay/core/platform-client";
import { startPlatform, type PlatformHarness } from "../../helpers/platform";
import { pollUntil } from "../../helpers/poll";

let platform: PlatformHarness;
let client: PlatformClient;

beforeAll(async () => {
  platform = await startPlatform({ jobPollSeconds: 0.5 });
  const account = await platform.signup({ require_end_user_id: false });
  client = createPlatformClient({ baseUrl: platform.baseUrl, apiKey: account.key });
});
afterAll(async () => {
  await platform.close();
});

describe("client.tasks", () => {
  it("creates, lists, gets, updates and deletes a task in a user's scope", async () => {
    const alice = client.forUser("eu_tasks_alice");
    const agent = await alice.agents.create({ name: "Scheduler" });
    const task = await alice.tasks.create({ teammate_id: agent.id, instructions: "Summarise the day", schedule: "0 9 * * 1-5", schedule_timezone: "Europe/Paris" });
    expect(task).toMatchObject({ teammate_id: agent.id, user_id: "eu_tasks_alice", name: "Summarise the day" });

    expect((await alice.tasks.list()).data.map((t) => t.id)).toContain(task.id);
    expect((await alice.tasks.get(task.id)).instructions).toBe("Summarise the day");
    expect((await alice.tasks.update(task.id, { name: "Daily summary" })).name).toBe("Daily summary");

    const [schedule] = (await alice.tasks.triggers.list(task.id)).data;
    expect(schedule).toMatchObject({ type: "schedule", cron: "0 9 * * 1-5", timezone: "Europe/Paris", enabled: true });
    expect(schedule!.next_run_at).not.toBeNull();
    const paused = await alice.tasks.triggers.update(task.id, schedule!.id, { enabled: false });
    expect(paused).toMatchObject({ enabled: false, next_run_at: null });
    expect((await alice.tasks.triggers.update(task.id, schedule!.id, { enabled: true })).next_run_at).not.toBeNull();

    // Another end-user sees none of it.
    const bob = client.forUser("eu_tasks_bob");
    await expect(bob.tasks.get(task.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(bob.tasks.triggers.list(task.id)).rejects.toBeInstanceOf(NotFoundError);

    await alice.tasks.delete(task.id);
    await expect(alice.tasks.get(task.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it("runs a task as JSON and as a stream", async () => {
    const scoped = client.forUser("eu_tasks_runner");
    const agent = await scoped.agents.create({ name: "Runner" });
    const task = await scoped.tasks.create({ teammate_id: agent.id, instructions: "Say hello" });
    const run = await scoped.tasks.run(task.id, { stream: false });
    expect(run).toMatchObject({ task_id: task.id, user_id: "eu_tasks_runner" });

    const stream = await scoped.tasks.run(task.id);
    const kinds: string[] = [];
    for await (const frame of stream) kinds.push(frame.type);
    expect(kinds.at(-1)).toBe("done");
    expect((await scoped.runs.list({ task_id: task.id })).data).toHaveLength(2);
  });

  it("fires a one-time trigger and records the fire", async () => {
    const scoped = client.forUser("eu_tasks_once");
    const agent = await scoped.agents.create({ name: "Once" });
    const task = await scoped.tasks.create({ teammate_id: agent.id, instructions: "Once" });
    const trigger = await scoped.tasks.triggers.create(task.id, { type: "schedule", run_at: new Date(Date.now() + 1000).toISOString() });
    const fire = await pollUntil(
      async (): Promise<TriggerFire | undefined> => (await scoped.tasks.triggers.fires(task.id, trigger.id)).data[0],
      (first) => Boolean(first?.run_id),
      "the trigger's fire",
    );
    expect(fire).toMatchObject({ outcome: "started", trigger_id: trigger.id });
    expect((await scoped.runs.get(fire!.run_id!)).task_id).toBe(task.id);
    await scoped.tasks.triggers.delete(task.id, trigger.id);
    expect((await scoped.tasks.triggers.list(task.id)).data).toHaveLength(0);
  });
});

describe("client.triggers.list", () => {
  it("walks every page with the <task_id>:<trigger_id> cursor", async () => {
    const scoped = client.forUser("eu_tasks_pager");
    const agent = await scoped.agents.create({ name: "Pager" });
    for (let i = 0; i < 3; i++) {
      const task = await scoped.tasks.create({ teammate_id: agent.id, instructions: `Job ${i}`, schedule: `${i} 8 * * *` });
      await scoped.tasks.triggers.create(task.id, { type: "schedule", interval_seconds: 3600 });
    }
    const first = await scoped.triggers.list({ limit: 2 });
    expect(first.data).toHaveLength(2);
    expect(first.has_more).toBe(true);
    const all = await scoped.triggers.listAll({ limit: 2 });
    expect(all).toHaveLength(6);
    expect(new Set(all.map((t) => `${t.task_id}:${t.id}`)).size).toBe(6);
    expect(await client.forUser("eu_tasks_other").triggers.listAll()).toHaveLength(0);
  });
});
