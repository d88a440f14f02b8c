-- AlterTable
ALTER TABLE "platform_webhooks" ADD COLUMN     "all_end_users" BOOLEAN NOT NULL DEFAULT false;
