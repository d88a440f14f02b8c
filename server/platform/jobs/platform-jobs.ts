// The platform's own recurring jobs, registered on every runtime's queue and scheduled once per slot
// across the deployment.
import type { Db } from "../repositories/db";
import type { PlatformConfig } from "../platform-config";
import { deleteExpiredKeys } from "../repositories/idempotency-keys";
import { deleteExpiredJudgments } from "../repositories/judgments";
import { compactOldRunEvents } from "./event-retention";
import type { JobQueue } from "../infrastructure/job-queue";
import { registerResealSecrets } from "./reseal-secrets";

export const EVENT_RETENTION_JOB = "run-event-retention";
export const EXPIRED_KEYS_JOB = "idempotency-key-expiry";
/** Judgments whose metadata outlived its 90 days (their results answer 410 after 30 already). */
export const EXPIRED_JUDGMENTS_JOB = "judgment-expiry";
// Rows one statement deletes: short statements, however large the backlog.
const EXPIRED_KEYS_BATCH = 1_000;

export async function registerPlatformJobs(jobs: JobQueue, { prisma, config }: { prisma: Db; config: PlatformConfig }) {
  await jobs.register(
    EVENT_RETENTION_JOB,
    async () => {
      const result = await compactOldRunEvents(prisma, { olderThanDays: config.runEventRetentionDays ?? 30 });
      if (result.more) await jobs.enqueue(EVENT_RETENTION_JOB, {});
      return result;
    },
    { expireInSeconds: 3600 },
  );
  // Daily, at a quiet hour of UTC.
  await jobs.schedule(EVENT_RETENTION_JOB, "daily", { cron: "17 3 * * *", timezone: "UTC" });

  await jobs.register(EXPIRED_KEYS_JOB, async () => deleteAllExpiredKeys(prisma), { retryLimit: 0 });
  await jobs.schedule(EXPIRED_KEYS_JOB, "every-5-minutes", { cron: "*/5 * * * *", timezone: "UTC" });

  await jobs.register(EXPIRED_JUDGMENTS_JOB, async () => deleteAllExpiredJudgments(prisma), { retryLimit: 0 });
  await jobs.schedule(EXPIRED_JUDGMENTS_JOB, "daily", { cron: "41 3 * * *", timezone: "UTC" });

  await registerResealSecrets(jobs, { prisma, config });
}

/** Expired idempotency keys of every account, a batch per statement; returns how many went. */
export const deleteAllExpiredKeys = (prisma: Db, now = new Date()) =>
  inBatches((limit) => deleteExpiredKeys(prisma, now, limit));

/** Judgments past their 90 days, of every account, a batch per statement; returns how many went. */
export const deleteAllExpiredJudgments = (prisma: Db, now = new Date()) =>
  inBatches((limit) => deleteExpiredJudgments(prisma, now, limit));

async function inBatches(deleteBatch: (limit: number) => Promise<number>): Promise<number> {
  let deleted = 0;
  for (;;) {
    const count = await deleteBatch(EXPIRED_KEYS_BATCH);
    deleted += count;
    if (count < EXPIRED_KEYS_BATCH) return deleted;
  }
}
