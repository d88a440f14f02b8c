-- CreateTable
CREATE TABLE "tenant_apps" (
    "tenant_id" UUID NOT NULL,
    "app" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "tenant_apps_pkey" PRIMARY KEY ("tenant_id","app")
);

-- AddForeignKey
ALTER TABLE "tenant_apps" ADD CONSTRAINT "tenant_apps_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;
