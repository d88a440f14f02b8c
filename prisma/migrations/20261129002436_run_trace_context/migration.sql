-- AlterTable
ALTER TABLE "platform_runs" ADD COLUMN     "trace_context" TEXT;
