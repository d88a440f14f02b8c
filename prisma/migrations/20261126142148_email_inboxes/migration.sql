-- AlterTable
ALTER TABLE "platform_agents" ADD COLUMN     "email_address" TEXT;

-- AlterTable
ALTER TABLE "platform_mail" ADD COLUMN     "from" TEXT,
ADD COLUMN     "in_reply_to" TEXT,
ADD COLUMN     "message_id" TEXT,
ADD COLUMN     "references" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- AlterTable
ALTER TABLE "platform_task_triggers" ADD COLUMN     "email_address" TEXT;

-- CreateTable
CREATE TABLE "platform_email_messages" (
    "id" SERIAL NOT NULL,
    "account_id" INTEGER NOT NULL,
    "direction" TEXT NOT NULL,
    "agent_id" INTEGER,
    "trigger_id" INTEGER,
    "run_id" INTEGER,
    "status" TEXT NOT NULL,
    "reason" TEXT,
    "from_address" TEXT NOT NULL,
    "to_address" TEXT NOT NULL,
    "subject" TEXT NOT NULL DEFAULT '',
    "message_id" TEXT,
    "in_reply_to" TEXT,
    "references" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "answers_id" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "platform_email_messages_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "platform_email_messages_answers_id_key" ON "platform_email_messages"("answers_id");

-- CreateIndex
CREATE INDEX "platform_email_messages_account_id_id_idx" ON "platform_email_messages"("account_id", "id");

-- CreateIndex
CREATE INDEX "platform_email_messages_message_id_idx" ON "platform_email_messages"("message_id");

-- CreateIndex
CREATE UNIQUE INDEX "platform_agents_email_address_key" ON "platform_agents"("email_address");

-- CreateIndex
CREATE UNIQUE INDEX "platform_task_triggers_email_address_key" ON "platform_task_triggers"("email_address");

-- AddForeignKey
ALTER TABLE "platform_email_messages" ADD CONSTRAINT "platform_email_messages_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "platform_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
