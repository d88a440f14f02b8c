-- AlterTable
ALTER TABLE "platform_accounts" ADD COLUMN     "held_micros" BIGINT NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "platform_runs" ADD COLUMN     "hold_micros" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "settled_micros" BIGINT NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "platform_turns" (
    "id" SERIAL NOT NULL,
    "account_id" INTEGER NOT NULL,
    "end_user_id" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "platform_turns_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "platform_turns_account_id_end_user_id_created_at_idx" ON "platform_turns"("account_id", "end_user_id", "created_at");

-- AddForeignKey
ALTER TABLE "platform_turns" ADD CONSTRAINT "platform_turns_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "platform_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
-- The balance can never go below zero, whatever the code does (docs/platform-api.md, "Money").
ALTER TABLE "platform_accounts" ADD CONSTRAINT "platform_accounts_balance_non_negative" CHECK ("balance_micros" >= 0);
ALTER TABLE "platform_accounts" ADD CONSTRAINT "platform_accounts_held_within_balance" CHECK ("held_micros" >= 0 AND "held_micros" <= "balance_micros");
