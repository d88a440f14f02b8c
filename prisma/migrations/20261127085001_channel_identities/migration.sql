-- CreateTable
CREATE TABLE "platform_channel_identities" (
    "account_id" INTEGER NOT NULL,
    "channel" TEXT NOT NULL,
    "client_id" TEXT NOT NULL,
    "client_secret_sealed" TEXT NOT NULL,
    "signing_secret_sealed" TEXT NOT NULL,
    "codehost_app_id" TEXT,
    "codehost_app_slug" TEXT,
    "codehost_private_key_sealed" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "platform_channel_identities_pkey" PRIMARY KEY ("account_id","channel")
);

-- AddForeignKey
ALTER TABLE "platform_channel_identities" ADD CONSTRAINT "platform_channel_identities_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "platform_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
