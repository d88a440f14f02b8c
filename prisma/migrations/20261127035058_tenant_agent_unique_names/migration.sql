-- AlterTable
ALTER TABLE "tenant_agents" ADD COLUMN     "name_key" TEXT;

-- Backfill: live agents get their lower-cased name. Where a tenant already has several live agents of
-- one name, the oldest keeps it and the others are renamed with a part of their id, so the unique
-- index below can be built and chat finds one agent per name.
UPDATE "tenant_agents" AS agent
SET "name" = agent."name" || ' (' || left(agent."id"::text, 8) || ')'
FROM (
  SELECT "id", row_number() OVER (PARTITION BY "tenant_id", lower(btrim("name")) ORDER BY "created_at", "id") AS position
  FROM "tenant_agents"
  WHERE "archived_at" IS NULL
) AS ranked
WHERE agent."id" = ranked."id" AND ranked.position > 1;

UPDATE "tenant_agents" SET "name_key" = lower(btrim("name")) WHERE "archived_at" IS NULL;

-- CreateIndex
CREATE UNIQUE INDEX "tenant_agents_tenant_id_name_key_key" ON "tenant_agents"("tenant_id", "name_key");
