// The framework's recurring work, on the platform's job queue: the run ledger's sweep (its webhook
// registered first when it is not yet, run-ledger-webhook.ts; then sweepRunLedger in run-ledger.ts, then sweepSchedules in schedules.ts, which counts schedules' runs)
// every minute, by one instance per minute however many run; and after a key rotation, the framework's
// sealed values sealed again under the current key (sealing.ts).
import type { Db } from "@/server/shared/db";
import { type JobQueue, registerReseal } from "@/server/platform/embedding";
import type { PlatformConnection } from "./platform-connection";
import { ledgerSweeps } from "@/server/framework/observability/metrics";
import { sweepRunLedger } from "./run-ledger";
import { ensureLedgerWebhook, ledgerWebhookUrl } from "./run-ledger-webhook";
import { frameworkSealedColumns, frameworkSecrets } from "./sealing";
import { sweepSchedules } from "./schedules";

export const ADMISSION_SWEEP_JOB = "admission-sweep";
export const FRAMEWORK_RESEAL_JOB = "framework-reseal-secrets";

export async function registerFrameworkJobs(
  jobs: JobQueue,
  prisma: Db,
  connection: () => Promise<PlatformConnection>,
): Promise<void> {
  // Not retried: the next minute's sweep looks again. Run by the framework's processes whatever their
  // role: platform workers (npm run platform) do not load the framework.
  await jobs.register(
    ADMISSION_SWEEP_JOB,
    async () => {
      try {
        const platform = await connection();
        await ensureLedgerWebhook(prisma, platform, ledgerWebhookUrl());
        const result = { runs: await sweepRunLedger(prisma, platform), schedules: await sweepSchedules(prisma, platform) };
        ledgerSweeps.inc({ outcome: "ok" });
        return result;
      } catch (error) {
        ledgerSweeps.inc({ outcome: "failed" });
        throw error;
      }
    },
    { retryLimit: 0, expireInSeconds: 300, everywhere: true },
  );
  await jobs.schedule(ADMISSION_SWEEP_JOB, "every-minute", { cron: "* * * * *", timezone: "UTC" });

  const secrets = frameworkSecrets();
  await registerReseal(jobs, prisma, { name: FRAMEWORK_RESEAL_JOB, secrets, columns: () => frameworkSealedColumns(secrets), everywhere: true });
}
