-- CreateTable
CREATE TABLE "platform_tasks" (
    "id" SERIAL NOT NULL,
    "account_id" INTEGER NOT NULL,
    "end_user_id" INTEGER,
    "agent_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "instructions" TEXT NOT NULL,
    "tools" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "expected_output" TEXT,
    "goals" TEXT,
    "email_notifications" BOOLEAN NOT NULL DEFAULT false,
    "permission_mode" TEXT NOT NULL,
    "webhook_enabled" BOOLEAN NOT NULL DEFAULT false,
    "webhook_token_hash" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "platform_tasks_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "platform_task_triggers" (
    "id" SERIAL NOT NULL,
    "task_id" INTEGER NOT NULL,
    "account_id" INTEGER NOT NULL,
    "end_user_id" INTEGER,
    "type" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "cron" TEXT,
    "interval_seconds" INTEGER,
    "run_at" TIMESTAMPTZ(3),
    "timezone" TEXT,
    "app" TEXT,
    "trigger_name" TEXT,
    "trigger_config" JSONB,
    "allowed_senders" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "missed_runs" TEXT NOT NULL DEFAULT 'latest',
    "max_lateness_seconds" INTEGER NOT NULL DEFAULT 3600,
    "next_run_at" TIMESTAMPTZ(3),
    "revision" INTEGER NOT NULL DEFAULT 1,
    "retired_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "platform_task_triggers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "platform_trigger_fires" (
    "id" BIGSERIAL NOT NULL,
    "trigger_id" INTEGER NOT NULL,
    "due_at" TIMESTAMPTZ(3) NOT NULL,
    "fired_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "outcome" TEXT NOT NULL,
    "run_id" INTEGER,
    "reason" TEXT,

    CONSTRAINT "platform_trigger_fires_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "platform_task_lessons" (
    "id" SERIAL NOT NULL,
    "task_id" INTEGER NOT NULL,
    "content" TEXT NOT NULL,
    "run_id" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "platform_task_lessons_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "platform_tasks_webhook_token_hash_key" ON "platform_tasks"("webhook_token_hash");

-- CreateIndex
CREATE INDEX "platform_tasks_account_id_end_user_id_id_idx" ON "platform_tasks"("account_id", "end_user_id", "id");

-- CreateIndex
CREATE INDEX "platform_tasks_agent_id_idx" ON "platform_tasks"("agent_id");

-- CreateIndex
CREATE INDEX "platform_task_triggers_task_id_idx" ON "platform_task_triggers"("task_id");

-- CreateIndex
CREATE INDEX "platform_task_triggers_account_id_id_idx" ON "platform_task_triggers"("account_id", "id");

-- CreateIndex
CREATE INDEX "platform_trigger_fires_trigger_id_id_idx" ON "platform_trigger_fires"("trigger_id", "id");

-- CreateIndex
CREATE UNIQUE INDEX "platform_trigger_fires_trigger_id_due_at_key" ON "platform_trigger_fires"("trigger_id", "due_at");

-- CreateIndex
CREATE INDEX "platform_task_lessons_task_id_id_idx" ON "platform_task_lessons"("task_id", "id");

-- AddForeignKey
ALTER TABLE "platform_tasks" ADD CONSTRAINT "platform_tasks_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "platform_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_tasks" ADD CONSTRAINT "platform_tasks_end_user_id_fkey" FOREIGN KEY ("end_user_id") REFERENCES "platform_end_users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_tasks" ADD CONSTRAINT "platform_tasks_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "platform_agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_task_triggers" ADD CONSTRAINT "platform_task_triggers_task_id_fkey" FOREIGN KEY ("task_id") REFERENCES "platform_tasks"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_trigger_fires" ADD CONSTRAINT "platform_trigger_fires_trigger_id_fkey" FOREIGN KEY ("trigger_id") REFERENCES "platform_task_triggers"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_task_lessons" ADD CONSTRAINT "platform_task_lessons_task_id_fkey" FOREIGN KEY ("task_id") REFERENCES "platform_tasks"("id") ON DELETE CASCADE ON UPDATE CASCADE;
