-- AlterTable
ALTER TABLE "platform_runs" ADD COLUMN     "skill_playbook" JSONB;

-- CreateTable
CREATE TABLE "platform_skills" (
    "id" SERIAL NOT NULL,
    "account_id" INTEGER NOT NULL,
    "end_user_id" INTEGER,
    "owner_key" INTEGER NOT NULL,
    "agent_id" INTEGER,
    "name" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "scope" TEXT NOT NULL DEFAULT 'account',
    "status" TEXT NOT NULL DEFAULT 'active',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "platform_skills_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "platform_skills_account_id_end_user_id_id_idx" ON "platform_skills"("account_id", "end_user_id", "id");

-- CreateIndex
CREATE UNIQUE INDEX "platform_skills_account_id_owner_key_slug_key" ON "platform_skills"("account_id", "owner_key", "slug");

-- AddForeignKey
ALTER TABLE "platform_skills" ADD CONSTRAINT "platform_skills_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "platform_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_skills" ADD CONSTRAINT "platform_skills_end_user_id_fkey" FOREIGN KEY ("end_user_id") REFERENCES "platform_end_users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_skills" ADD CONSTRAINT "platform_skills_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "platform_agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;
