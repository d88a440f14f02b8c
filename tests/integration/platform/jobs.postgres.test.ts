// Two job queues on one PostgreSQL database, standing for two instances of a deployment: a schedule
// fires once per slot and a keyed job runs once, whichever instance takes it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type Database } from "@/server/shared/db";
import { createJobQueue, type JobQueue } from "@/server/platform/infrastructure/job-queue";
import { createEmptyPostgresDatabase } from "../../helpers/database";
import { pollUntil } from "../../helpers/poll";
import { unfinishedJobs } from "../../helpers/queue";

let empty: Awaited<ReturnType<typeof createEmptyPostgresDatabase>>;
const databases: Database[] = [];
const queues: JobQueue[] = [];

beforeAll(async () => {
  empty = await createEmptyPostgresDatabase();
  for (let i = 0; i < 2; i++) {
    // Each instance opens its own pool, as two processes would.
    const database = await openDatabase({ url: empty.url, poolMax: 4 });
    databases.push(database);
    queues.push(createJobQueue({ database, work: true, pollingIntervalSeconds: 0.5, stopTimeoutMs: 2_000 }));
  }
  await Promise.all(queues.map((queue) => queue.start()));
});

afterAll(async () => {
  await Promise.all(queues.map((queue) => queue.stop()));
  for (const database of databases) await database.close();
  await empty.drop();
});

const waitUntil = (check: () => boolean, what: string) => pollUntil(async () => check(), Boolean, what);
const waitUntilAsync = (check: () => Promise<boolean>, what: string) => pollUntil(check, Boolean, what);

describe("two instances", () => {
  it("fire a schedule once per slot", async () => {
    const fires: { instance: number; id: string; at: number }[] = [];
    await Promise.all(
      queues.map((queue, instance) => queue.register("tick", async ({ id }) => void fires.push({ instance, id, at: Date.now() }))),
    );
    // Both instances declare the schedule at start-up, as every instance does.
    await Promise.all(queues.map((queue) => queue.schedule("tick", "every-second", { cron: "* * * * * *", timezone: "Europe/Paris" })));
    await waitUntil(() => fires.length >= 6, "six fires");
    await queues[0]!.unschedule("tick", "every-second");
    // The fire queued for the next slot finds the schedule gone; then nothing can fire again.
    await waitUntilAsync(async () => (await unfinishedJobs(databases[0]!.prisma, "schedule-fire")) === 0, "the queued fire to find the schedule gone");
    await waitUntilAsync(async () => (await unfinishedJobs(databases[0]!.prisma, "tick")) === 0, "the fired jobs to run");
    const ids = fires.map((fire) => fire.id);
    expect(new Set(ids).size).toBe(ids.length);
    // One run per second-slot: twice as many (each instance firing each slot) cannot fit the span.
    const spanSeconds = (fires.at(-1)!.at - fires[0]!.at) / 1_000;
    expect(fires.length).toBeLessThanOrEqual(Math.round(spanSeconds) + 2);
  });

  it("run a job enqueued with one key from both once", async () => {
    const runs: number[] = [];
    await Promise.all(queues.map((queue, instance) => queue.register("deliver", async () => void runs.push(instance))));
    const ids = await Promise.all(queues.map((queue, instance) => queue.enqueue("deliver", { instance }, { key: "event-42" })));
    expect(ids.filter((id) => id !== null)).toHaveLength(1);
    await waitUntil(() => runs.length === 1, "the delivery");
    // Enqueued again later, from either instance: still the one job (a job enqueued after it runs,
    // and it has not).
    expect(await queues[1]!.enqueue("deliver", {}, { key: "event-42" })).toBeNull();
    await queues[1]!.enqueue("deliver", { marker: true }, { key: "event-43" });
    await waitUntil(() => runs.length === 2, "the job enqueued after it");
    expect(runs).toHaveLength(2);
  });
});
