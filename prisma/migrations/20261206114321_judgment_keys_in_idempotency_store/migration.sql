-- One idempotency store: judgments' keys move from their own columns into platform_idempotency_keys
-- (resource 'judgment', bound to the judgment), beside the runs' keys.

-- AlterTable
ALTER TABLE "platform_idempotency_keys" ADD COLUMN     "judgment_id" INTEGER,
ADD COLUMN     "resource" TEXT NOT NULL DEFAULT 'run';

-- AddForeignKey
ALTER TABLE "platform_idempotency_keys" ADD CONSTRAINT "platform_idempotency_keys_judgment_id_fkey" FOREIGN KEY ("judgment_id") REFERENCES "platform_judgments"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The judgments' live keys. Keys were one namespace per resource before: a judgment key an account
-- also used for a run keeps the run's (the judgment's replay then answers idempotency_key_reuse).
INSERT INTO "platform_idempotency_keys" ("account_id", "key", "resource", "request_hash", "judgment_id", "created_at", "expires_at")
SELECT "account_id", "idempotency_key", 'judgment', "request_hash", "id", "created_at", "key_expires_at"
FROM "platform_judgments"
WHERE "idempotency_key" IS NOT NULL AND "request_hash" IS NOT NULL AND "key_expires_at" IS NOT NULL
ON CONFLICT ("account_id", "key") DO NOTHING;

-- DropIndex
DROP INDEX "platform_judgments_account_id_idempotency_key_key";

-- AlterTable
ALTER TABLE "platform_judgments" DROP COLUMN "idempotency_key",
DROP COLUMN "key_expires_at",
DROP COLUMN "request_hash";

-- CreateIndex
CREATE INDEX "platform_idempotency_keys_judgment_id_idx" ON "platform_idempotency_keys"("judgment_id");
