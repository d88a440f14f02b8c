-- CreateIndex
CREATE INDEX "platform_idempotency_keys_expires_at_idx" ON "platform_idempotency_keys"("expires_at");
