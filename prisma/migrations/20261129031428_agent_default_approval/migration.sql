-- AlterTable
ALTER TABLE "tenant_agents" ALTER COLUMN "permission_mode" SET DEFAULT 'approval';
