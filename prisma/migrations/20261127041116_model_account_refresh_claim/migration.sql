-- AlterTable
ALTER TABLE "platform_model_provider_accounts" ADD COLUMN     "refreshing_until" TIMESTAMPTZ(3);
