-- AlterTable
ALTER TABLE "tenant_embed_settings" ADD COLUMN     "tool_views" JSONB NOT NULL DEFAULT '{}';
