-- CreateTable
CREATE TABLE "tenant_embed_secrets" (
    "id" UUID NOT NULL,
    "tenant_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "secret_hash" TEXT NOT NULL,
    "created_by_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "tenant_embed_secrets_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tenant_embed_users" (
    "tenant_id" UUID NOT NULL,
    "external_id" TEXT NOT NULL,
    "user_id" UUID NOT NULL,
    "email" TEXT NOT NULL,
    "name" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "tenant_embed_users_pkey" PRIMARY KEY ("tenant_id","external_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "tenant_embed_secrets_secret_hash_key" ON "tenant_embed_secrets"("secret_hash");

-- CreateIndex
CREATE INDEX "tenant_embed_secrets_tenant_id_idx" ON "tenant_embed_secrets"("tenant_id");

-- CreateIndex
CREATE UNIQUE INDEX "tenant_embed_users_user_id_key" ON "tenant_embed_users"("user_id");

-- AddForeignKey
ALTER TABLE "tenant_embed_secrets" ADD CONSTRAINT "tenant_embed_secrets_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tenant_embed_secrets" ADD CONSTRAINT "tenant_embed_secrets_created_by_id_fkey" FOREIGN KEY ("created_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tenant_embed_users" ADD CONSTRAINT "tenant_embed_users_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tenant_embed_users" ADD CONSTRAINT "tenant_embed_users_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
