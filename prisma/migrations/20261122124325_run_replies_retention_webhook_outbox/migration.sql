-- AlterTable
ALTER TABLE "platform_runs" ADD COLUMN     "interactive" BOOLEAN NOT NULL DEFAULT true,
ADD COLUMN     "retention" TEXT NOT NULL DEFAULT 'standard';

-- CreateTable
CREATE TABLE "platform_webhook_events" (
    "id" BIGSERIAL NOT NULL,
    "account_id" INTEGER NOT NULL,
    "end_user_id" INTEGER,
    "run_id" INTEGER,
    "type" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "delivered_at" TIMESTAMPTZ(3),

    CONSTRAINT "platform_webhook_events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "platform_webhook_events_delivered_at_id_idx" ON "platform_webhook_events"("delivered_at", "id");

-- CreateIndex
CREATE INDEX "platform_webhook_events_run_id_idx" ON "platform_webhook_events"("run_id");

-- AddForeignKey
ALTER TABLE "platform_webhook_events" ADD CONSTRAINT "platform_webhook_events_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "platform_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
