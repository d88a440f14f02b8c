-- The outbox's rows are dispatched, not delivered: delivery is per webhook (platform_webhook_deliveries).
ALTER TABLE "platform_webhook_events" RENAME COLUMN "delivered_at" TO "dispatched_at";
ALTER INDEX "platform_webhook_events_delivered_at_id_idx" RENAME TO "platform_webhook_events_dispatched_at_id_idx";
-- Rows written before webhooks existed had nobody to go to.
UPDATE "platform_webhook_events" SET "dispatched_at" = "created_at";

-- CreateTable
CREATE TABLE "platform_webhooks" (
    "id" SERIAL NOT NULL,
    "account_id" INTEGER NOT NULL,
    "end_user_id" INTEGER,
    "url" TEXT NOT NULL,
    "events" TEXT[],
    "secret_sealed" TEXT NOT NULL,
    "previous_secret_sealed" TEXT,
    "previous_secret_expires_at" TIMESTAMPTZ(3),
    "active" BOOLEAN NOT NULL DEFAULT true,
    "disabled_reason" TEXT,
    "disabled_at" TIMESTAMPTZ(3),
    "failing_since" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "platform_webhooks_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "platform_webhook_deliveries" (
    "id" BIGSERIAL NOT NULL,
    "webhook_id" INTEGER NOT NULL,
    "event_id" BIGINT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3),
    "origin" TEXT NOT NULL DEFAULT 'dispatch',
    "error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "platform_webhook_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "platform_webhook_attempts" (
    "id" BIGSERIAL NOT NULL,
    "delivery_id" BIGINT NOT NULL,
    "number" INTEGER NOT NULL,
    "attempted_at" TIMESTAMPTZ(3) NOT NULL,
    "duration_ms" INTEGER NOT NULL,
    "response_status" INTEGER,
    "response_excerpt" TEXT,
    "error" TEXT,
    "succeeded" BOOLEAN NOT NULL,

    CONSTRAINT "platform_webhook_attempts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "platform_webhooks_account_id_end_user_id_idx" ON "platform_webhooks"("account_id", "end_user_id");

-- CreateIndex
CREATE INDEX "platform_webhook_deliveries_webhook_id_id_idx" ON "platform_webhook_deliveries"("webhook_id", "id");

-- CreateIndex
CREATE INDEX "platform_webhook_deliveries_status_next_attempt_at_idx" ON "platform_webhook_deliveries"("status", "next_attempt_at");

-- CreateIndex
CREATE INDEX "platform_webhook_deliveries_event_id_idx" ON "platform_webhook_deliveries"("event_id");

-- CreateIndex
CREATE UNIQUE INDEX "platform_webhook_attempts_delivery_id_number_key" ON "platform_webhook_attempts"("delivery_id", "number");

-- CreateIndex
CREATE INDEX "platform_webhook_events_account_id_end_user_id_created_at_idx" ON "platform_webhook_events"("account_id", "end_user_id", "created_at");

-- AddForeignKey
ALTER TABLE "platform_webhooks" ADD CONSTRAINT "platform_webhooks_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "platform_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_webhooks" ADD CONSTRAINT "platform_webhooks_end_user_id_fkey" FOREIGN KEY ("end_user_id") REFERENCES "platform_end_users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_webhook_deliveries" ADD CONSTRAINT "platform_webhook_deliveries_webhook_id_fkey" FOREIGN KEY ("webhook_id") REFERENCES "platform_webhooks"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_webhook_deliveries" ADD CONSTRAINT "platform_webhook_deliveries_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "platform_webhook_events"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_webhook_attempts" ADD CONSTRAINT "platform_webhook_attempts_delivery_id_fkey" FOREIGN KEY ("delivery_id") REFERENCES "platform_webhook_deliveries"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Wakes the webhook dispatcher when outbox rows commit, whatever statement wrote them: a NOTIFY on the
-- platform's signal channel (server/platform/runtime/signals.ts), sent by PostgreSQL at commit only.
CREATE FUNCTION platform_webhook_events_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('inlay_signals', E'database\nwebhook-events\t');
  RETURN NULL;
END
$$;
CREATE TRIGGER platform_webhook_events_notify AFTER INSERT ON "platform_webhook_events"
  FOR EACH STATEMENT EXECUTE FUNCTION platform_webhook_events_notify();
