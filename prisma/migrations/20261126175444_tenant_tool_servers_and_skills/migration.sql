-- CreateTable
CREATE TABLE "tenant_tool_servers" (
    "id" UUID NOT NULL,
    "tenant_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "url" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "auth_type" TEXT NOT NULL,
    "auth_config" JSONB NOT NULL DEFAULT '{}',
    "secret_sealed" TEXT,
    "tool_defs" JSONB NOT NULL DEFAULT '[]',
    "auto_approve" BOOLEAN NOT NULL DEFAULT false,
    "version" INTEGER NOT NULL DEFAULT 1,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "tenant_tool_servers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tenant_tool_server_copies" (
    "tenant_tool_server_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "platform_server_id" INTEGER NOT NULL,
    "synced_version" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "tenant_tool_server_copies_pkey" PRIMARY KEY ("tenant_tool_server_id","user_id")
);

-- CreateTable
CREATE TABLE "tenant_skills" (
    "id" UUID NOT NULL,
    "tenant_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "version" INTEGER NOT NULL DEFAULT 1,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "tenant_skills_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tenant_skill_copies" (
    "tenant_skill_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "platform_skill_id" INTEGER NOT NULL,
    "synced_version" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "tenant_skill_copies_pkey" PRIMARY KEY ("tenant_skill_id","user_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "tenant_tool_servers_tenant_id_name_key" ON "tenant_tool_servers"("tenant_id", "name");

-- CreateIndex
CREATE UNIQUE INDEX "tenant_skills_tenant_id_name_key" ON "tenant_skills"("tenant_id", "name");

-- AddForeignKey
ALTER TABLE "tenant_tool_servers" ADD CONSTRAINT "tenant_tool_servers_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tenant_tool_server_copies" ADD CONSTRAINT "tenant_tool_server_copies_tenant_tool_server_id_fkey" FOREIGN KEY ("tenant_tool_server_id") REFERENCES "tenant_tool_servers"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tenant_tool_server_copies" ADD CONSTRAINT "tenant_tool_server_copies_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tenant_skills" ADD CONSTRAINT "tenant_skills_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tenant_skill_copies" ADD CONSTRAINT "tenant_skill_copies_tenant_skill_id_fkey" FOREIGN KEY ("tenant_skill_id") REFERENCES "tenant_skills"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tenant_skill_copies" ADD CONSTRAINT "tenant_skill_copies_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
