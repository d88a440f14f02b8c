-- AlterTable
ALTER TABLE "platform_runs" ADD COLUMN     "events_compacted_at" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "job_schedules" (
    "name" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "cron" TEXT NOT NULL,
    "timezone" TEXT NOT NULL,
    "data" JSONB NOT NULL DEFAULT '{}',
    "revision" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "job_schedules_pkey" PRIMARY KEY ("name","key")
);

-- CreateIndex
CREATE INDEX "platform_runs_events_compacted_at_finished_at_idx" ON "platform_runs"("events_compacted_at", "finished_at");
