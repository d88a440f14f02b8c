-- CreateTable
CREATE TABLE "platform_agent_repos" (
    "id" SERIAL NOT NULL,
    "account_id" INTEGER NOT NULL,
    "agent_id" INTEGER NOT NULL,
    "repo_full_name" TEXT NOT NULL,
    "mode" TEXT NOT NULL DEFAULT 'trusted',
    "connection_id" TEXT NOT NULL,
    "env_sealed" TEXT,
    "env_keys" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "platform_agent_repos_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "platform_agent_repos_account_id_idx" ON "platform_agent_repos"("account_id");

-- CreateIndex
CREATE UNIQUE INDEX "platform_agent_repos_agent_id_repo_full_name_key" ON "platform_agent_repos"("agent_id", "repo_full_name");

-- CreateIndex
CREATE UNIQUE INDEX "platform_agents_webhook_token_hash_key" ON "platform_agents"("webhook_token_hash");

-- AddForeignKey
ALTER TABLE "platform_agent_repos" ADD CONSTRAINT "platform_agent_repos_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "platform_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_agent_repos" ADD CONSTRAINT "platform_agent_repos_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "platform_agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;
