-- AlterTable
ALTER TABLE "platform_runs" ADD COLUMN     "checkpoint" JSONB,
ADD COLUMN     "resume_attempts" INTEGER NOT NULL DEFAULT 0;
