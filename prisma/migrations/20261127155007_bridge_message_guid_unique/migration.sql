-- DropIndex
DROP INDEX "platform_bridge_messages_bridge_id_message_guid_idx";

-- Repeats that raced the first delivery before this index: only the first keeps its guid.
UPDATE "platform_bridge_messages" AS later SET "message_guid" = NULL
WHERE later."message_guid" IS NOT NULL
  AND EXISTS (
    SELECT 1 FROM "platform_bridge_messages" AS first
    WHERE first."bridge_id" = later."bridge_id" AND first."message_guid" = later."message_guid" AND first."id" < later."id"
  );

-- CreateIndex
CREATE UNIQUE INDEX "platform_bridge_messages_bridge_id_message_guid_key" ON "platform_bridge_messages"("bridge_id", "message_guid");
