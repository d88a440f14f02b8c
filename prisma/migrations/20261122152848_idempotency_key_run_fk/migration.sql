-- Keys bound to a run that no longer exists replay nothing: drop them, so the foreign key can hold.
DELETE FROM "platform_idempotency_keys" k
WHERE k."run_id" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "platform_runs" r WHERE r."id" = k."run_id");

-- CreateIndex
CREATE INDEX "platform_idempotency_keys_run_id_idx" ON "platform_idempotency_keys"("run_id");

-- AddForeignKey
ALTER TABLE "platform_idempotency_keys" ADD CONSTRAINT "platform_idempotency_keys_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "platform_runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
