-- CreateTable
CREATE TABLE "tenant_embed_settings" (
    "tenant_id" UUID NOT NULL,
    "allowed_origins" TEXT[],
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "tenant_embed_settings_pkey" PRIMARY KEY ("tenant_id")
);

-- AddForeignKey
ALTER TABLE "tenant_embed_settings" ADD CONSTRAINT "tenant_embed_settings_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;
