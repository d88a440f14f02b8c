-- CreateTable
CREATE TABLE "platform_accounts" (
    "id" SERIAL NOT NULL,
    "email" TEXT NOT NULL,
    "first_name" TEXT NOT NULL,
    "password_hash" TEXT,
    "product" TEXT,
    "signup_source" TEXT NOT NULL DEFAULT 'api',
    "email_verified_at" TIMESTAMPTZ(3),
    "require_end_user_id" BOOLEAN NOT NULL DEFAULT true,
    "retention_mode" TEXT NOT NULL DEFAULT 'standard',
    "per_end_user_run_limit" INTEGER,
    "per_end_user_cost_limit_cents" INTEGER,
    "per_end_user_rate_per_minute" INTEGER,
    "approval_email_enabled" BOOLEAN NOT NULL DEFAULT true,
    "approval_chat_enabled" BOOLEAN NOT NULL DEFAULT true,
    "company_research" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "platform_accounts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "platform_api_keys" (
    "id" SERIAL NOT NULL,
    "account_id" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "hint" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),
    "last_used_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "platform_api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "platform_email_verifications" (
    "id" SERIAL NOT NULL,
    "account_id" INTEGER NOT NULL,
    "token_hash" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "used_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "platform_email_verifications_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "platform_mail" (
    "id" SERIAL NOT NULL,
    "account_id" INTEGER,
    "to" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "platform_mail_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "platform_end_users" (
    "id" SERIAL NOT NULL,
    "account_id" INTEGER NOT NULL,
    "external_id" TEXT NOT NULL,
    "name" TEXT,
    "email" TEXT,
    "company" TEXT,
    "metadata" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "platform_end_users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "platform_agents" (
    "id" SERIAL NOT NULL,
    "account_id" INTEGER NOT NULL,
    "end_user_id" INTEGER,
    "name" TEXT NOT NULL,
    "instructions" TEXT NOT NULL DEFAULT '',
    "tools" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "role" TEXT,
    "goals" TEXT,
    "model" TEXT,
    "effort" TEXT,
    "default_permission_mode" TEXT NOT NULL DEFAULT 'approval',
    "enable_memory" BOOLEAN,
    "enable_history" BOOLEAN,
    "enable_task_setup_tools" BOOLEAN,
    "enable_feedback" BOOLEAN,
    "enable_self_improvement" BOOLEAN,
    "prompt_profile" TEXT NOT NULL DEFAULT 'platform',
    "disabled_builtin_tools" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "metadata" JSONB,
    "allowed_senders" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "inbound_imessage_enabled" BOOLEAN NOT NULL DEFAULT false,
    "imessage_chat_guid" TEXT,
    "bridge_id" INTEGER,
    "allowed_imessage_senders" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "chat_slug" TEXT,
    "chat_channels" JSONB,
    "allowed_chat_senders" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "email_inbox" BOOLEAN NOT NULL DEFAULT false,
    "fetchmail" BOOLEAN NOT NULL DEFAULT false,
    "webhook_enabled" BOOLEAN NOT NULL DEFAULT false,
    "webhook_token_hash" TEXT,
    "template" TEXT,
    "customized_fields" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "group_id" INTEGER,
    "visibility" TEXT,
    "display_order" INTEGER,
    "status" TEXT NOT NULL DEFAULT 'enabled',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "platform_agents_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "platform_agent_documents" (
    "id" SERIAL NOT NULL,
    "account_id" INTEGER NOT NULL,
    "agent_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "summary" TEXT NOT NULL DEFAULT '',
    "mime_type" TEXT NOT NULL DEFAULT 'text/markdown',
    "content" TEXT NOT NULL DEFAULT '',
    "size_bytes" INTEGER NOT NULL DEFAULT 0,
    "source" TEXT NOT NULL DEFAULT 'agent',
    "source_run_id" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "platform_agent_documents_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "platform_memories" (
    "id" SERIAL NOT NULL,
    "account_id" INTEGER NOT NULL,
    "end_user_id" INTEGER,
    "content" TEXT NOT NULL,
    "source" TEXT NOT NULL DEFAULT 'api',
    "agent_id" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "platform_memories_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "platform_permissions" (
    "id" SERIAL NOT NULL,
    "account_id" INTEGER NOT NULL,
    "end_user_id" INTEGER NOT NULL,
    "tool" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "platform_permissions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "platform_accounts_email_key" ON "platform_accounts"("email");

-- CreateIndex
CREATE UNIQUE INDEX "platform_api_keys_hash_key" ON "platform_api_keys"("hash");

-- CreateIndex
CREATE INDEX "platform_api_keys_account_id_kind_idx" ON "platform_api_keys"("account_id", "kind");

-- CreateIndex
CREATE UNIQUE INDEX "platform_email_verifications_token_hash_key" ON "platform_email_verifications"("token_hash");

-- CreateIndex
CREATE INDEX "platform_email_verifications_account_id_idx" ON "platform_email_verifications"("account_id");

-- CreateIndex
CREATE INDEX "platform_mail_account_id_idx" ON "platform_mail"("account_id");

-- CreateIndex
CREATE UNIQUE INDEX "platform_end_users_account_id_external_id_key" ON "platform_end_users"("account_id", "external_id");

-- CreateIndex
CREATE INDEX "platform_agents_account_id_end_user_id_status_idx" ON "platform_agents"("account_id", "end_user_id", "status");

-- CreateIndex
CREATE UNIQUE INDEX "platform_agent_documents_agent_id_name_key" ON "platform_agent_documents"("agent_id", "name");

-- CreateIndex
CREATE INDEX "platform_memories_account_id_end_user_id_idx" ON "platform_memories"("account_id", "end_user_id");

-- CreateIndex
CREATE UNIQUE INDEX "platform_permissions_account_id_end_user_id_tool_key" ON "platform_permissions"("account_id", "end_user_id", "tool");

-- AddForeignKey
ALTER TABLE "platform_api_keys" ADD CONSTRAINT "platform_api_keys_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "platform_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_email_verifications" ADD CONSTRAINT "platform_email_verifications_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "platform_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_mail" ADD CONSTRAINT "platform_mail_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "platform_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_end_users" ADD CONSTRAINT "platform_end_users_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "platform_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_agents" ADD CONSTRAINT "platform_agents_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "platform_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_agents" ADD CONSTRAINT "platform_agents_end_user_id_fkey" FOREIGN KEY ("end_user_id") REFERENCES "platform_end_users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_agent_documents" ADD CONSTRAINT "platform_agent_documents_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "platform_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_agent_documents" ADD CONSTRAINT "platform_agent_documents_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "platform_agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_memories" ADD CONSTRAINT "platform_memories_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "platform_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_memories" ADD CONSTRAINT "platform_memories_end_user_id_fkey" FOREIGN KEY ("end_user_id") REFERENCES "platform_end_users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_permissions" ADD CONSTRAINT "platform_permissions_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "platform_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_permissions" ADD CONSTRAINT "platform_permissions_end_user_id_fkey" FOREIGN KEY ("end_user_id") REFERENCES "platform_end_users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
