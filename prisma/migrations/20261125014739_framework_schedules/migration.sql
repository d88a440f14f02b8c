-- AlterTable
ALTER TABLE "tenant_limits" ADD COLUMN     "max_active_schedules" INTEGER;

-- CreateTable
CREATE TABLE "tenant_schedules" (
    "id" UUID NOT NULL,
    "tenant_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "tenant_agent_id" UUID,
    "platform_task_id" INTEGER,
    "trigger_id" TEXT,
    "name" TEXT NOT NULL,
    "cron" TEXT NOT NULL,
    "timezone" TEXT NOT NULL,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "paused_reason" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "tenant_schedules_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "tenant_schedules_platform_task_id_key" ON "tenant_schedules"("platform_task_id");

-- CreateIndex
CREATE INDEX "tenant_schedules_tenant_id_active_idx" ON "tenant_schedules"("tenant_id", "active");

-- CreateIndex
CREATE INDEX "tenant_schedules_tenant_id_user_id_idx" ON "tenant_schedules"("tenant_id", "user_id");

-- AddForeignKey
ALTER TABLE "tenant_schedules" ADD CONSTRAINT "tenant_schedules_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tenant_schedules" ADD CONSTRAINT "tenant_schedules_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tenant_schedules" ADD CONSTRAINT "tenant_schedules_tenant_agent_id_fkey" FOREIGN KEY ("tenant_agent_id") REFERENCES "tenant_agents"("id") ON DELETE SET NULL ON UPDATE CASCADE;
