-- AlterTable
ALTER TABLE "platform_billing_settings" ADD COLUMN     "overage_cap_cents" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "overage_enabled" BOOLEAN NOT NULL DEFAULT false;
