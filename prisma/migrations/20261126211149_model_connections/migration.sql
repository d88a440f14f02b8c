-- CreateTable
CREATE TABLE "platform_model_connections" (
    "id" SERIAL NOT NULL,
    "account_id" INTEGER NOT NULL,
    "provider" TEXT NOT NULL,
    "default_model" TEXT,
    "preferred_default" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "platform_model_connections_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "platform_model_provider_accounts" (
    "id" SERIAL NOT NULL,
    "connection_id" INTEGER NOT NULL,
    "account_id" INTEGER NOT NULL,
    "method" TEXT NOT NULL,
    "label" TEXT,
    "secret_sealed" TEXT NOT NULL,
    "base_url" TEXT,
    "expires_at" TIMESTAMPTZ(3),
    "status" TEXT NOT NULL DEFAULT 'connected',
    "last_error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "platform_model_provider_accounts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "platform_model_authorizations" (
    "state_hash" TEXT NOT NULL,
    "account_id" INTEGER NOT NULL,
    "provider" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "code_verifier_sealed" TEXT,
    "redirect_uri" TEXT NOT NULL,
    "error" TEXT,
    "provider_account_id" INTEGER,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "platform_model_authorizations_pkey" PRIMARY KEY ("state_hash")
);

-- CreateIndex
CREATE UNIQUE INDEX "platform_model_connections_account_id_provider_key" ON "platform_model_connections"("account_id", "provider");

-- CreateIndex
CREATE INDEX "platform_model_provider_accounts_connection_id_idx" ON "platform_model_provider_accounts"("connection_id");

-- CreateIndex
CREATE INDEX "platform_model_provider_accounts_account_id_idx" ON "platform_model_provider_accounts"("account_id");

-- CreateIndex
CREATE INDEX "platform_model_authorizations_account_id_status_idx" ON "platform_model_authorizations"("account_id", "status");

-- AddForeignKey
ALTER TABLE "platform_model_connections" ADD CONSTRAINT "platform_model_connections_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "platform_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_model_provider_accounts" ADD CONSTRAINT "platform_model_provider_accounts_connection_id_fkey" FOREIGN KEY ("connection_id") REFERENCES "platform_model_connections"("id") ON DELETE CASCADE ON UPDATE CASCADE;
