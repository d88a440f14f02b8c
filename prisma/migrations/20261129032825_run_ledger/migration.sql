-- AlterTable
ALTER TABLE "framework_platform_accounts" ADD COLUMN     "webhook_id" INTEGER,
ADD COLUMN     "webhook_secret_cipher" TEXT;

-- AlterTable
ALTER TABLE "run_admissions" ADD COLUMN     "base_cost_micros" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "platform_run_id" INTEGER;

-- CreateIndex
CREATE INDEX "run_admissions_platform_run_id_idx" ON "run_admissions"("platform_run_id");

-- Admissions of runs already recorded (tRPC runs, schedules) name their run, so the ledger settles them.
UPDATE "run_admissions" SET "platform_run_id" = "tenant_runs"."platform_run_id"
FROM "tenant_runs" WHERE "tenant_runs"."admission_id" = "run_admissions"."id";
