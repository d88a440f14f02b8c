// The platform's own recurring jobs, registered on every runtime's queue and scheduled once per slot
// across the deployment.
import type { PrismaClient } from "@/server/generated/prisma/client";
import type { PlatformConfig } from "../context";
import { compactOldRunEvents } from "./event-retention";
import type { JobQueue } from "./queue";

export const EVENT_RETENTION_JOB = "run-event-retention";

export async function registerPlatformJobs(jobs: JobQueue, { prisma, config }: { prisma: PrismaClient; config: PlatformConfig }) {
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
}
