-- CreateTable
CREATE TABLE "platform_judgments" (
    "id" SERIAL NOT NULL,
    "account_id" INTEGER NOT NULL,
    "end_user_id" INTEGER,
    "run_id" INTEGER,
    "mode" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "idempotency_key" TEXT,
    "request_hash" TEXT,
    "key_expires_at" TIMESTAMPTZ(3),
    "retention" TEXT NOT NULL DEFAULT 'standard',
    "result" JSONB,
    "error" TEXT,
    "model" TEXT NOT NULL DEFAULT 'not_called',
    "funding_source" TEXT NOT NULL DEFAULT 'platform',
    "input_tokens" INTEGER NOT NULL DEFAULT 0,
    "output_tokens" INTEGER NOT NULL DEFAULT 0,
    "cost_micros" BIGINT NOT NULL DEFAULT 0,
    "latency_ms" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "result_expires_at" TIMESTAMPTZ(3) NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "platform_judgments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "platform_judgment_connections" (
    "account_id" INTEGER NOT NULL,
    "key_sealed" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "platform_judgment_connections_pkey" PRIMARY KEY ("account_id")
);

-- CreateIndex
CREATE INDEX "platform_judgments_expires_at_idx" ON "platform_judgments"("expires_at");

-- CreateIndex
CREATE UNIQUE INDEX "platform_judgments_account_id_idempotency_key_key" ON "platform_judgments"("account_id", "idempotency_key");

-- AddForeignKey
ALTER TABLE "platform_judgments" ADD CONSTRAINT "platform_judgments_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "platform_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_judgments" ADD CONSTRAINT "platform_judgments_end_user_id_fkey" FOREIGN KEY ("end_user_id") REFERENCES "platform_end_users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_judgment_connections" ADD CONSTRAINT "platform_judgment_connections_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "platform_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
