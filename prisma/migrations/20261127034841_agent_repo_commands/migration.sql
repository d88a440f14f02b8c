-- AlterTable
ALTER TABLE "platform_agent_repos" ADD COLUMN     "commands_approved_at" TIMESTAMPTZ(3),
ADD COLUMN     "commands_digest" TEXT;
