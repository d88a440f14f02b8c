// The recurring jobs a runtime schedules on its queue (jobs/platform-jobs.ts, and the framework's
// admission sweep), and the expired idempotency keys job.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteAllExpiredKeys } from "@/server/platform/jobs/platform-jobs";
import { registerFrameworkJobs } from "@/server/framework/tenancy/framework-jobs";
import { startPlatform, type PlatformHarness } from "../../helpers/platform";

let platform: PlatformHarness;
beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(() => platform.close());

describe("platform jobs", () => {
  it("are scheduled by the runtime, once whatever the number of declarations", async () => {
    const runtime = await platform.runtime();
    await registerFrameworkJobs(runtime.jobs, platform.database.prisma, () => Promise.reject(new Error("not called here")));
    // A second runtime start declares the same schedules again: same rows, same revisions.
    const before = await platform.database.prisma.jobSchedule.findMany({ orderBy: { name: "asc" } });
    await runtime.jobs.schedule("run-event-retention", "daily", { cron: "17 3 * * *", timezone: "UTC" });
    const after = await platform.database.prisma.jobSchedule.findMany({ orderBy: { name: "asc" } });
    expect(after).toEqual(before);
    expect(after.map(({ name, key, cron, timezone }) => ({ name, key, cron, timezone }))).toEqual([
      { name: "admission-sweep", key: "every-minute", cron: "* * * * *", timezone: "UTC" },
      { name: "app-trigger-poll-sweep", key: "every-minute", cron: "* * * * *", timezone: "UTC" },
      { name: "fetchmail-poll-sweep", key: "every-minute", cron: "* * * * *", timezone: "UTC" },
      { name: "idempotency-key-expiry", key: "every-5-minutes", cron: "*/5 * * * *", timezone: "UTC" },
      { name: "judgment-expiry", key: "daily", cron: "41 3 * * *", timezone: "UTC" },
      { name: "run-event-retention", key: "daily", cron: "17 3 * * *", timezone: "UTC" },
      { name: "trigger-sweep", key: "every-minute", cron: "* * * * *", timezone: "UTC" },
      { name: "webhook-event-retention", key: "daily", cron: "37 3 * * *", timezone: "UTC" },
      { name: "webhook-sweep", key: "every-minute", cron: "* * * * *", timezone: "UTC" },
    ]);
  });

  it("delete expired idempotency keys of every account, and only those", async () => {
    const { prisma } = platform.database;
    const accounts = [await platform.signup(), await platform.signup()];
    const now = new Date();
    const at = (minutes: number) => new Date(now.getTime() + minutes * 60_000);
    let n = 0;
    for (const account of accounts) {
      for (const expiresAt of [at(-10), at(-1), at(10)]) {
        await prisma.platformIdempotencyKey.create({ data: { accountId: account.id, key: `k${n++}`, requestHash: "h", expiresAt } });
      }
    }
    expect(await deleteAllExpiredKeys(prisma, now)).toBe(4);
    const left = await prisma.platformIdempotencyKey.findMany({ where: { accountId: { in: accounts.map((a) => a.id) } } });
    expect(left.map((row) => row.expiresAt.getTime())).toEqual([at(10).getTime(), at(10).getTime()]);
  });
});
