-- CreateTable
CREATE TABLE "platform_tool_servers" (
    "id" SERIAL NOT NULL,
    "account_id" INTEGER NOT NULL,
    "end_user_id" INTEGER,
    "name" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "auth_type" TEXT NOT NULL DEFAULT 'none',
    "auth_config" JSONB NOT NULL DEFAULT '{}',
    "secret_sealed" TEXT,
    "tool_defs" JSONB NOT NULL DEFAULT '[]',
    "discovered_tools" JSONB,
    "description" TEXT,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "auto_approve" BOOLEAN NOT NULL DEFAULT false,
    "script_source_sealed" TEXT,
    "script_sha256" TEXT,
    "script_allowlist" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "last_error" TEXT,
    "approved_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "platform_tool_servers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "platform_tool_server_grants" (
    "id" SERIAL NOT NULL,
    "server_id" INTEGER NOT NULL,
    "account_id" INTEGER NOT NULL,
    "end_user_id" INTEGER,
    "tokens_sealed" TEXT NOT NULL,
    "client_sealed" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "platform_tool_server_grants_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "platform_tool_server_oauth_flows" (
    "state_hash" TEXT NOT NULL,
    "server_id" INTEGER NOT NULL,
    "account_id" INTEGER NOT NULL,
    "end_user_id" INTEGER,
    "code_verifier_sealed" TEXT NOT NULL,
    "client_sealed" TEXT NOT NULL,
    "redirect_uri" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "platform_tool_server_oauth_flows_pkey" PRIMARY KEY ("state_hash")
);

-- CreateIndex
CREATE INDEX "platform_tool_servers_account_id_end_user_id_idx" ON "platform_tool_servers"("account_id", "end_user_id");

-- CreateIndex
CREATE UNIQUE INDEX "platform_tool_server_grants_server_id_end_user_id_key" ON "platform_tool_server_grants"("server_id", "end_user_id");

-- CreateIndex
CREATE INDEX "platform_tool_server_oauth_flows_server_id_idx" ON "platform_tool_server_oauth_flows"("server_id");

-- AddForeignKey
ALTER TABLE "platform_tool_servers" ADD CONSTRAINT "platform_tool_servers_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "platform_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_tool_servers" ADD CONSTRAINT "platform_tool_servers_end_user_id_fkey" FOREIGN KEY ("end_user_id") REFERENCES "platform_end_users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_tool_server_grants" ADD CONSTRAINT "platform_tool_server_grants_server_id_fkey" FOREIGN KEY ("server_id") REFERENCES "platform_tool_servers"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_tool_server_grants" ADD CONSTRAINT "platform_tool_server_grants_end_user_id_fkey" FOREIGN KEY ("end_user_id") REFERENCES "platform_end_users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_tool_server_oauth_flows" ADD CONSTRAINT "platform_tool_server_oauth_flows_server_id_fkey" FOREIGN KEY ("server_id") REFERENCES "platform_tool_servers"("id") ON DELETE CASCADE ON UPDATE CASCADE;
