-- AlterTable
ALTER TABLE "platform_accounts" ADD COLUMN     "balance_micros" BIGINT NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "platform_runs" (
    "id" SERIAL NOT NULL,
    "account_id" INTEGER NOT NULL,
    "end_user_id" INTEGER,
    "agent_id" INTEGER NOT NULL,
    "task_id" INTEGER,
    "status" TEXT NOT NULL DEFAULT 'running',
    "permission_mode" TEXT NOT NULL,
    "human_in_the_loop" BOOLEAN NOT NULL,
    "model" TEXT NOT NULL,
    "effort" TEXT NOT NULL,
    "skill" TEXT,
    "tools" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "memory" BOOLEAN,
    "history" BOOLEAN,
    "task_setup_tools" BOOLEAN,
    "feedback" BOOLEAN,
    "email_notifications" BOOLEAN NOT NULL DEFAULT false,
    "output_schema" JSONB,
    "output_data" JSONB,
    "output" JSONB,
    "metadata" JSONB,
    "max_turns" INTEGER NOT NULL,
    "turns_used" INTEGER NOT NULL DEFAULT 0,
    "messages" JSONB NOT NULL DEFAULT '[]',
    "error" TEXT,
    "stop_reason" TEXT,
    "surface" TEXT NOT NULL DEFAULT 'api',
    "input_tokens" INTEGER NOT NULL DEFAULT 0,
    "output_tokens" INTEGER NOT NULL DEFAULT 0,
    "cost_micros" BIGINT NOT NULL DEFAULT 0,
    "lease_owner" TEXT,
    "lease_expires_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "platform_runs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "platform_run_events" (
    "id" BIGSERIAL NOT NULL,
    "run_id" INTEGER NOT NULL,
    "type" TEXT NOT NULL,
    "data" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "platform_run_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "platform_permission_requests" (
    "id" TEXT NOT NULL,
    "run_id" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "tool_name" TEXT NOT NULL,
    "tool_call_id" TEXT NOT NULL,
    "input" JSONB NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "answer" JSONB,
    "remember" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "resolved_at" TIMESTAMPTZ(3),

    CONSTRAINT "platform_permission_requests_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "platform_run_files" (
    "id" SERIAL NOT NULL,
    "run_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "mime_type" TEXT NOT NULL,
    "size_bytes" INTEGER NOT NULL,
    "content" BYTEA NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "platform_run_files_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "platform_idempotency_keys" (
    "id" SERIAL NOT NULL,
    "account_id" INTEGER NOT NULL,
    "key" TEXT NOT NULL,
    "request_hash" TEXT NOT NULL,
    "run_id" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "platform_idempotency_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "platform_balance_transactions" (
    "id" SERIAL NOT NULL,
    "account_id" INTEGER NOT NULL,
    "type" TEXT NOT NULL,
    "amount_micros" BIGINT NOT NULL,
    "balance_after_micros" BIGINT NOT NULL,
    "run_id" INTEGER,
    "description" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "platform_balance_transactions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "platform_usage_records" (
    "id" SERIAL NOT NULL,
    "account_id" INTEGER NOT NULL,
    "end_user_id" INTEGER,
    "run_id" INTEGER NOT NULL,
    "agent_id" INTEGER NOT NULL,
    "model" TEXT NOT NULL,
    "surface" TEXT NOT NULL,
    "settled_meter" TEXT NOT NULL DEFAULT 'wallet',
    "input_tokens" INTEGER NOT NULL,
    "output_tokens" INTEGER NOT NULL,
    "cache_creation_tokens" INTEGER NOT NULL DEFAULT 0,
    "cache_read_tokens" INTEGER NOT NULL DEFAULT 0,
    "cost_micros" BIGINT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "platform_usage_records_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "platform_runs_account_id_end_user_id_id_idx" ON "platform_runs"("account_id", "end_user_id", "id");

-- CreateIndex
CREATE INDEX "platform_runs_status_lease_expires_at_idx" ON "platform_runs"("status", "lease_expires_at");

-- CreateIndex
CREATE INDEX "platform_run_events_run_id_id_idx" ON "platform_run_events"("run_id", "id");

-- CreateIndex
CREATE INDEX "platform_permission_requests_run_id_idx" ON "platform_permission_requests"("run_id");

-- CreateIndex
CREATE INDEX "platform_run_files_run_id_idx" ON "platform_run_files"("run_id");

-- CreateIndex
CREATE UNIQUE INDEX "platform_idempotency_keys_account_id_key_key" ON "platform_idempotency_keys"("account_id", "key");

-- CreateIndex
CREATE INDEX "platform_balance_transactions_account_id_id_idx" ON "platform_balance_transactions"("account_id", "id");

-- CreateIndex
CREATE INDEX "platform_usage_records_account_id_created_at_idx" ON "platform_usage_records"("account_id", "created_at");

-- CreateIndex
CREATE INDEX "platform_usage_records_account_id_end_user_id_created_at_idx" ON "platform_usage_records"("account_id", "end_user_id", "created_at");

-- AddForeignKey
ALTER TABLE "platform_runs" ADD CONSTRAINT "platform_runs_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "platform_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_runs" ADD CONSTRAINT "platform_runs_end_user_id_fkey" FOREIGN KEY ("end_user_id") REFERENCES "platform_end_users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_runs" ADD CONSTRAINT "platform_runs_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "platform_agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_run_events" ADD CONSTRAINT "platform_run_events_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "platform_runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_permission_requests" ADD CONSTRAINT "platform_permission_requests_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "platform_runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_run_files" ADD CONSTRAINT "platform_run_files_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "platform_runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_idempotency_keys" ADD CONSTRAINT "platform_idempotency_keys_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "platform_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_balance_transactions" ADD CONSTRAINT "platform_balance_transactions_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "platform_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_usage_records" ADD CONSTRAINT "platform_usage_records_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "platform_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
