// The job queue (server/platform/infrastructure/job-queue.ts) on this project's database: delayed jobs, retries
// with backoff, idempotency by key, schedules in a time zone, cancel and inspect.
import { setTimeout as delay } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createJobQueue, jobIdForKey, type JobQueue } from "@/server/platform/infrastructure/job-queue";
import { nextSlot } from "@/server/platform/infrastructure/schedule-slots";
import { createTestDatabase, type TestDatabase } from "../../helpers/database";
import { pollUntil } from "../../helpers/poll";
import { unfinishedJobs } from "../../helpers/queue";

let database: TestDatabase;
let jobs: JobQueue;

beforeAll(async () => {
  database = await createTestDatabase();
  jobs = createJobQueue({ database, work: true, pollingIntervalSeconds: 0.5, stopTimeoutMs: 2_000 });
  await jobs.start();
});

afterAll(async () => {
  await jobs.stop();
  await database.dispose();
});

const waitUntil = (check: () => boolean | Promise<boolean>, what: string) => pollUntil(async () => check(), Boolean, what);

describe("enqueue", () => {
  it("runs a delayed job after its time, not before", async () => {
    const ranAt: number[] = [];
    await jobs.register("test-delayed", async () => void ranAt.push(Date.now()));
    const startAfter = new Date(Date.now() + 1_500);
    const id = await jobs.enqueue("test-delayed", { n: 1 }, { startAfter });
    expect(id).toEqual(expect.any(String));
    // The handler returns before the queue marks the job completed: wait for the mark, not the call.
    await waitUntil(async () => (await jobs.inspect("test-delayed", id!))?.state === "completed", "the delayed job");
    expect(ranAt).toHaveLength(1);
    expect(ranAt[0]!).toBeGreaterThanOrEqual(startAfter.getTime());
    const info = await jobs.inspect("test-delayed", id!);
    expect(info).toMatchObject({ state: "completed", data: { n: 1 } });
    expect(info!.startAfter.getTime()).toBe(startAfter.getTime());
  });

  it("retries a failing job with backoff, then it succeeds", async () => {
    const attempts: number[] = [];
    await jobs.register("test-flaky", async () => {
      attempts.push(Date.now());
      if (attempts.length < 3) throw new Error(`attempt ${attempts.length} fails`);
      return { ok: true };
    });
    const id = await jobs.enqueue("test-flaky", {}, { retryLimit: 3, retryDelaySeconds: 1, retryBackoff: true });
    await waitUntil(async () => (await jobs.inspect("test-flaky", id!))?.state === "completed", "the retried job");
    expect(attempts).toHaveLength(3);
    // Backoff: the n-th retry waits at least retryDelay * 2^(n-1) seconds.
    expect(attempts[1]! - attempts[0]!).toBeGreaterThanOrEqual(1_000);
    expect(attempts[2]! - attempts[1]!).toBeGreaterThanOrEqual(2_000);
    expect(await jobs.inspect("test-flaky", id!)).toMatchObject({ retryCount: 2, retryLimit: 3, output: { ok: true } });
  });

  it("records the error of a job that failed for good", async () => {
    await jobs.register("test-doomed", async () => {
      throw new Error("always broken");
    });
    const id = await jobs.enqueue("test-doomed", {}, { retryLimit: 0 });
    await waitUntil(async () => (await jobs.inspect("test-doomed", id!))?.state === "failed", "the failure");
    expect(await jobs.inspect("test-doomed", id!)).toMatchObject({ retryCount: 0, output: { message: "always broken" } });
  });

  it("runs the same key once, however often it is enqueued", async () => {
    const runs: string[] = [];
    await jobs.register("test-keyed", async ({ data }) => void runs.push((data as { from: string }).from));
    const first = await jobs.enqueue("test-keyed", { from: "a" }, { key: "delivery-1" });
    const second = await jobs.enqueue("test-keyed", { from: "b" }, { key: "delivery-1" });
    const other = await jobs.enqueue("test-keyed", { from: "c" }, { key: "delivery-2" });
    expect(first).toEqual(expect.any(String));
    expect(second).toBeNull();
    expect(other).not.toBe(first);
    await waitUntil(() => runs.length === 2, "both keys");
    // Still dropped once the first has run: a job enqueued after it runs, and it has not.
    expect(await jobs.enqueue("test-keyed", { from: "d" }, { key: "delivery-1" })).toBeNull();
    await jobs.enqueue("test-keyed", { from: "marker" }, { key: "delivery-3" });
    await waitUntil(() => runs.includes("marker"), "the job enqueued after it");
    expect(runs.sort()).toEqual(["a", "c", "marker"]);
  });

  it("cancels a job before it runs, and inspect shows it cancelled", async () => {
    const ran: string[] = [];
    await jobs.register("test-cancelled", async ({ data }) => void ran.push((data as { name: string }).name));
    const startAfter = new Date(Date.now() + 1_000);
    const id = await jobs.enqueue("test-cancelled", { name: "cancelled" }, { startAfter });
    expect(await jobs.inspect("test-cancelled", id!)).toMatchObject({ state: "created", retryCount: 0 });
    await jobs.cancel("test-cancelled", id!);
    // A job due at the same time runs: the cancelled one's time has come, and it has not run.
    await jobs.enqueue("test-cancelled", { name: "marker" }, { startAfter });
    await waitUntil(() => ran.length > 0, "the job due with it");
    expect(ran).toEqual(["marker"]);
    expect(await jobs.inspect("test-cancelled", id!)).toMatchObject({ state: "cancelled" });
    expect(await jobs.inspect("test-cancelled", "00000000-0000-4000-8000-000000000000")).toBeNull();
  });
});

describe("wake-ups", () => {
  /** Counts the fetches pg-boss sends for `queue` (its `WITH next AS …` statement) while `body` runs. */
  async function countFetches(queue: string, body: () => Promise<void>): Promise<number> {
    const { driver } = database;
    const target = (driver.kind === "postgres" ? driver.session : driver.pglite) as unknown as {
      query: (text: string, values?: unknown[]) => Promise<unknown>;
    };
    const query = target.query;
    let fetches = 0;
    target.query = function (this: unknown, text: string, values?: unknown[]) {
      if (/^\s*WITH next as/i.test(text) && values?.[0] === queue) fetches++;
      return query.call(this, text, values);
    };
    try {
      await body();
    } finally {
      target.query = query;
    }
    return fetches;
  }

  it("a job sent wakes one idle worker, not all of them, and jobs still run side by side", async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let running = 0;
    let most = 0;
    let done = 0;
    await jobs.register(
      "test-wake",
      async () => {
        most = Math.max(most, ++running);
        await gate;
        running--;
        done++;
      },
      { concurrency: 8 },
    );
    const fetches = await countFetches("test-wake", async () => {
      for (let i = 0; i < 8; i++) await jobs.enqueue("test-wake", { i });
      await waitUntil(() => running === 8, "eight jobs running at once");
      open();
      await waitUntil(() => done === 8, "the eight jobs");
    });
    expect(most).toBe(8);
    // One fetch a job, and a few more from the 0.5 s watcher; waking every worker a send took 8 a job.
    expect(fetches).toBeLessThanOrEqual(8 + 8);
  });
});

describe("processes", () => {
  it("run handlers only where they work: a web-only queue enqueues and leaves the job to a worker", async () => {
    const web = createJobQueue({ database, work: false, pollingIntervalSeconds: 0.5 });
    await web.start();
    const ranIn: string[] = [];
    await web.register("test-roles", async () => void ranIn.push("web"));
    await jobs.register("test-roles", async () => void ranIn.push("worker"));
    const id = await web.enqueue("test-roles", {});
    await waitUntil(async () => (await jobs.inspect("test-roles", id!))?.state === "completed", "the worker");
    // Completed, it runs nowhere else.
    expect(ranIn).toEqual(["worker"]);
    await web.stop();
  });

  it("runs a handler registered `everywhere` in a web-only process too (code only that process loads)", async () => {
    const web = createJobQueue({ database, work: false, pollingIntervalSeconds: 0.5 });
    await web.start();
    let ran = 0;
    await web.register("test-everywhere", async () => void ran++, { everywhere: true });
    await web.enqueue("test-everywhere", {});
    await waitUntil(() => ran === 1, "the web-only process to run it");
    await web.stop();
  });

  it("stop waits for a running handler to finish", async () => {
    const other = createJobQueue({ database, work: true, pollingIntervalSeconds: 0.5, stopTimeoutMs: 5_000 });
    await other.start();
    let started = false;
    let finished = false;
    await other.register("test-slow", async () => {
      started = true;
      await delay(800);
      finished = true;
    });
    const id = await other.enqueue("test-slow", {});
    await waitUntil(() => started, "the slow job to start");
    await other.stop();
    expect(finished).toBe(true);
    await waitUntil(async () => (await jobs.inspect("test-slow", id!))?.state === "completed", "its completion");
  });
});

describe("schedule", () => {
  it("fires on its slots in the schedule's time zone, once each", async () => {
    // Every 2 s during the current hour of Asia/Kathmandu (UTC+05:45): that hour is never UTC's, so
    // the same cron read in UTC must not fire. Near the end of the hour, wait for the next one.
    const zone = "Asia/Kathmandu";
    const hourIn = (date: Date) => Number(new Intl.DateTimeFormat("en-GB", { timeZone: zone, hour: "2-digit", hourCycle: "h23" }).format(date));
    while (hourIn(new Date()) !== hourIn(new Date(Date.now() + 30_000))) await delay(1_000);
    const cron = `*/2 * ${hourIn(new Date())} * * *`;

    const fires: { id: string; at: number; data: unknown }[] = [];
    const utcFires: string[] = [];
    await jobs.register("test-zoned", async ({ id, data }) => void fires.push({ id, at: Date.now(), data }));
    await jobs.register("test-utc", async ({ id }) => void utcFires.push(id));
    await jobs.schedule("test-zoned", "tick", { cron, timezone: zone }, { tick: true });
    await jobs.schedule("test-utc", "tick", { cron, timezone: "UTC" });
    await waitUntil(() => fires.length >= 3, "three fires");
    const revision = await revisionOf("test-zoned", "tick");
    await jobs.unschedule("test-zoned", "tick");
    await jobs.unschedule("test-utc", "tick");
    expect(utcFires).toEqual([]);

    // Each fire is the job keyed by its slot, an even second at most a few seconds before it ran.
    for (const fire of fires) {
      const candidates = [0, 1, 2, 3, 4, 5].map((back) => new Date((Math.floor(fire.at / 2_000) - back) * 2_000));
      expect(candidates.map((slot) => jobIdForKey("test-zoned", `tick@${slot.toISOString()}`))).toContain(fire.id);
      expect(fire.data).toEqual({ tick: true });
    }
    expect(new Set(fires.map((fire) => fire.id)).size).toBe(fires.length);

    // Unscheduled: a job already enqueued may still run, and the fire queued for the next slot finds the
    // schedule gone. Once neither is left, nothing can fire again: every fire ran exactly its one job.
    await waitUntil(async () => (await unfinishedJobs(database.prisma, "schedule-fire", { revision })) === 0, "the queued fire to find the schedule gone");
    await waitUntil(async () => (await unfinishedJobs(database.prisma, "test-zoned")) === 0, "the fired jobs to run");
    const [ran] = await database.prisma.$queryRawUnsafe<{ count: number }[]>(`SELECT count(*)::int AS count FROM pgboss.job WHERE name = 'test-zoned'`);
    expect(fires.length).toBe(ran?.count);
    // Up to 30 s waiting for the next hour (in the last half-minute of one), then the fires.
  }, 60_000);

  it("fires at the wall-clock minute of its zone, keyed by the slot", async () => {
    // A zone 30 minutes off UTC: the job's key names the slot in UTC, minute 0 of Kolkata is :30 UTC.
    const fires: string[] = [];
    await jobs.register("test-kolkata-hour", async ({ id }) => void fires.push(id));
    await jobs.schedule("test-kolkata-hour", "hourly", { cron: "0 * * * *", timezone: "Asia/Kolkata" });
    const slot = nextSlot({ cron: "0 * * * *", timezone: "Asia/Kolkata" }, new Date());
    expect(slot.getUTCMinutes()).toBe(30);
    const fireId = jobIdForKey("schedule-fire", `${await revisionOf("test-kolkata-hour", "hourly")}@${slot.toISOString()}`);
    expect(await jobs.inspect("schedule-fire", fireId)).toMatchObject({ state: "created", startAfter: slot });
    await jobs.unschedule("test-kolkata-hour", "hourly");
  });

  it("refuses a cron it cannot read and an unknown time zone", async () => {
    await expect(jobs.schedule("test-bad", "k", { cron: "* * *", timezone: "UTC" }, {})).rejects.toThrow(/5 fields/);
    await expect(jobs.schedule("test-bad", "k", { cron: "* * * * *", timezone: "Mars/Olympus" }, {})).rejects.toThrow();
  });
});

async function revisionOf(name: string, key: string): Promise<string> {
  const row = await database.prisma.jobSchedule.findUniqueOrThrow({ where: { name_key: { name, key } } });
  return row.revision;
}
