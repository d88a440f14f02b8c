-- AlterTable
ALTER TABLE "platform_task_triggers" ADD COLUMN     "last_polled_at" TIMESTAMPTZ(3),
ADD COLUMN     "poll_cursor" JSONB,
ADD COLUMN     "poll_error" TEXT,
ADD COLUMN     "poll_version" INTEGER NOT NULL DEFAULT 0;
