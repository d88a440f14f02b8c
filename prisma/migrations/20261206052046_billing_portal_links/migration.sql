-- CreateTable
CREATE TABLE "platform_billing_portal_links" (
    "token_hash" TEXT NOT NULL,
    "account_id" INTEGER NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "platform_billing_portal_links_pkey" PRIMARY KEY ("token_hash")
);

-- CreateIndex
CREATE INDEX "platform_billing_portal_links_account_id_idx" ON "platform_billing_portal_links"("account_id");

-- AddForeignKey
ALTER TABLE "platform_billing_portal_links" ADD CONSTRAINT "platform_billing_portal_links_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "platform_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
