-- AlterTable
ALTER TABLE "tenants" ADD COLUMN     "allow_personal_agents" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "framework_platform_accounts" (
    "id" TEXT NOT NULL,
    "claim_token" TEXT NOT NULL,
    "claimed_at" TIMESTAMPTZ(3) NOT NULL,
    "account_id" INTEGER,
    "email" TEXT,
    "api_key_cipher" TEXT,
    "ready_at" TIMESTAMPTZ(3),

    CONSTRAINT "framework_platform_accounts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tenant_platform_users" (
    "tenant_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "platform_user_id" TEXT NOT NULL,
    "profile_created_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "tenant_platform_users_pkey" PRIMARY KEY ("tenant_id","user_id")
);

-- CreateTable
CREATE TABLE "tenant_agents" (
    "id" UUID NOT NULL,
    "tenant_id" UUID NOT NULL,
    "owner_user_id" UUID,
    "name" TEXT NOT NULL,
    "instructions" TEXT NOT NULL DEFAULT '',
    "model" TEXT,
    "permission_mode" TEXT NOT NULL DEFAULT 'autonomous',
    "tools" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "version" INTEGER NOT NULL DEFAULT 1,
    "archived_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "tenant_agents_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tenant_agent_copies" (
    "tenant_agent_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "platform_agent_id" INTEGER NOT NULL,
    "synced_version" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "tenant_agent_copies_pkey" PRIMARY KEY ("tenant_agent_id","user_id")
);

-- CreateTable
CREATE TABLE "tenant_runs" (
    "tenant_id" UUID NOT NULL,
    "platform_run_id" INTEGER NOT NULL,
    "user_id" UUID NOT NULL,
    "tenant_agent_id" UUID,
    "admission_id" UUID,
    "cost_cents" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "tenant_runs_pkey" PRIMARY KEY ("tenant_id","platform_run_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "tenant_platform_users_platform_user_id_key" ON "tenant_platform_users"("platform_user_id");

-- CreateIndex
CREATE INDEX "tenant_agents_tenant_id_idx" ON "tenant_agents"("tenant_id");

-- CreateIndex
CREATE INDEX "tenant_runs_admission_id_idx" ON "tenant_runs"("admission_id");

-- AddForeignKey
ALTER TABLE "tenant_platform_users" ADD CONSTRAINT "tenant_platform_users_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tenant_platform_users" ADD CONSTRAINT "tenant_platform_users_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tenant_agents" ADD CONSTRAINT "tenant_agents_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tenant_agent_copies" ADD CONSTRAINT "tenant_agent_copies_tenant_agent_id_fkey" FOREIGN KEY ("tenant_agent_id") REFERENCES "tenant_agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tenant_agent_copies" ADD CONSTRAINT "tenant_agent_copies_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tenant_runs" ADD CONSTRAINT "tenant_runs_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tenant_runs" ADD CONSTRAINT "tenant_runs_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tenant_runs" ADD CONSTRAINT "tenant_runs_tenant_agent_id_fkey" FOREIGN KEY ("tenant_agent_id") REFERENCES "tenant_agents"("id") ON DELETE SET NULL ON UPDATE CASCADE;
