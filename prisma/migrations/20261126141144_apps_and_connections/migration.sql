-- AlterTable
ALTER TABLE "platform_permission_requests" ADD COLUMN     "app" TEXT;

-- CreateTable
CREATE TABLE "platform_app_connections" (
    "id" TEXT NOT NULL,
    "account_id" INTEGER NOT NULL,
    "end_user_id" INTEGER,
    "app" TEXT NOT NULL,
    "auth_kind" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "account_label" TEXT,
    "label" TEXT,
    "notes" TEXT,
    "scopes" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "agent_ids" INTEGER[] DEFAULT ARRAY[]::INTEGER[],
    "credentials_sealed" TEXT,
    "expires_at" TIMESTAMPTZ(3),
    "options" JSONB,
    "last_error" TEXT,
    "last_used_at" TIMESTAMPTZ(3),
    "refreshing_until" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "platform_app_connections_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "platform_app_connect_flows" (
    "state_hash" TEXT NOT NULL,
    "connection_id" TEXT NOT NULL,
    "account_id" INTEGER NOT NULL,
    "end_user_id" INTEGER,
    "app" TEXT NOT NULL,
    "code_verifier_sealed" TEXT NOT NULL,
    "redirect_uri" TEXT NOT NULL,
    "oauth_redirect_uri" TEXT NOT NULL,
    "add_account" BOOLEAN NOT NULL DEFAULT false,
    "claim_ticket_hash" TEXT,
    "status" TEXT NOT NULL DEFAULT 'started',
    "error" TEXT,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "used_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "platform_app_connect_flows_pkey" PRIMARY KEY ("state_hash")
);

-- CreateIndex
CREATE INDEX "platform_app_connections_account_id_end_user_id_app_idx" ON "platform_app_connections"("account_id", "end_user_id", "app");

-- CreateIndex
CREATE INDEX "platform_app_connect_flows_connection_id_idx" ON "platform_app_connect_flows"("connection_id");

-- AddForeignKey
ALTER TABLE "platform_app_connections" ADD CONSTRAINT "platform_app_connections_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "platform_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_app_connections" ADD CONSTRAINT "platform_app_connections_end_user_id_fkey" FOREIGN KEY ("end_user_id") REFERENCES "platform_end_users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_app_connect_flows" ADD CONSTRAINT "platform_app_connect_flows_connection_id_fkey" FOREIGN KEY ("connection_id") REFERENCES "platform_app_connections"("id") ON DELETE CASCADE ON UPDATE CASCADE;
