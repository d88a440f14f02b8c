-- CreateTable
CREATE TABLE "platform_payments" (
    "id" SERIAL NOT NULL,
    "account_id" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "amount_cents" INTEGER NOT NULL,
    "currency" TEXT NOT NULL DEFAULT 'usd',
    "reference" TEXT NOT NULL,
    "plan_slug" TEXT,
    "billing_period" TEXT,
    "provider_session_id" TEXT,
    "provider_payment_id" TEXT,
    "provider_subscription_id" TEXT,
    "provider_invoice_id" TEXT,
    "checkout_url" TEXT,
    "failure_reason" TEXT,
    "actor" TEXT,
    "reason" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completed_at" TIMESTAMPTZ(3),

    CONSTRAINT "platform_payments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "platform_payment_events" (
    "id" BIGSERIAL NOT NULL,
    "provider" TEXT NOT NULL,
    "event_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "platform_payment_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "platform_receipts" (
    "id" SERIAL NOT NULL,
    "account_id" INTEGER NOT NULL,
    "payment_id" INTEGER NOT NULL,
    "amount_cents" INTEGER NOT NULL,
    "currency" TEXT NOT NULL DEFAULT 'usd',
    "description" TEXT NOT NULL,
    "invoice_pdf_url" TEXT,
    "hosted_invoice_url" TEXT,
    "page_salt" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "platform_receipts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "platform_billing_settings" (
    "account_id" INTEGER NOT NULL,
    "auto_reload_enabled" BOOLEAN NOT NULL DEFAULT false,
    "auto_reload_threshold_cents" INTEGER,
    "auto_reload_amount_cents" INTEGER,
    "auto_reload_armed" BOOLEAN NOT NULL DEFAULT true,
    "auto_reload_crossings" INTEGER NOT NULL DEFAULT 0,
    "auto_reload_last_error" TEXT,
    "low_balance_threshold_cents" INTEGER,
    "low_balance_armed" BOOLEAN NOT NULL DEFAULT true,
    "low_balance_crossings" INTEGER NOT NULL DEFAULT 0,
    "provider_customer_id" TEXT,
    "saved_payment_method" TEXT,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "platform_billing_settings_pkey" PRIMARY KEY ("account_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "platform_payments_reference_key" ON "platform_payments"("reference");

-- CreateIndex
CREATE UNIQUE INDEX "platform_payments_provider_session_id_key" ON "platform_payments"("provider_session_id");

-- CreateIndex
CREATE UNIQUE INDEX "platform_payments_provider_invoice_id_key" ON "platform_payments"("provider_invoice_id");

-- CreateIndex
CREATE INDEX "platform_payments_account_id_id_idx" ON "platform_payments"("account_id", "id");

-- CreateIndex
CREATE INDEX "platform_payments_provider_subscription_id_idx" ON "platform_payments"("provider_subscription_id");

-- CreateIndex
CREATE UNIQUE INDEX "platform_payment_events_provider_event_id_key" ON "platform_payment_events"("provider", "event_id");

-- CreateIndex
CREATE UNIQUE INDEX "platform_receipts_payment_id_key" ON "platform_receipts"("payment_id");

-- CreateIndex
CREATE INDEX "platform_receipts_account_id_id_idx" ON "platform_receipts"("account_id", "id");

-- CreateIndex
CREATE UNIQUE INDEX "platform_billing_settings_provider_customer_id_key" ON "platform_billing_settings"("provider_customer_id");

-- AddForeignKey
ALTER TABLE "platform_payments" ADD CONSTRAINT "platform_payments_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "platform_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_receipts" ADD CONSTRAINT "platform_receipts_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "platform_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_receipts" ADD CONSTRAINT "platform_receipts_payment_id_fkey" FOREIGN KEY ("payment_id") REFERENCES "platform_payments"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_billing_settings" ADD CONSTRAINT "platform_billing_settings_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "platform_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
