-- fetchmail: an agent polls an outside IMAP mailbox (jobs/fetchmail-polls.ts).
-- CreateTable
CREATE TABLE "platform_fetchmail_mailboxes" (
    "agent_id" INTEGER NOT NULL,
    "account_id" INTEGER NOT NULL,
    "host" TEXT NOT NULL,
    "port" INTEGER NOT NULL,
    "tls" BOOLEAN NOT NULL,
    "username" TEXT NOT NULL,
    "password_sealed" TEXT NOT NULL,
    "mailbox" TEXT NOT NULL DEFAULT 'INBOX',
    "uid_validity" BIGINT NOT NULL,
    "last_uid" BIGINT NOT NULL,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "next_poll_at" TIMESTAMPTZ(3) NOT NULL,
    "last_polled_at" TIMESTAMPTZ(3),
    "last_error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "platform_fetchmail_mailboxes_pkey" PRIMARY KEY ("agent_id")
);

-- CreateTable
CREATE TABLE "platform_fetchmail_messages" (
    "id" SERIAL NOT NULL,
    "account_id" INTEGER NOT NULL,
    "agent_id" INTEGER NOT NULL,
    "uid_validity" BIGINT NOT NULL,
    "uid" BIGINT NOT NULL,
    "message_id" TEXT,
    "status" TEXT NOT NULL,
    "reason" TEXT,
    "run_id" INTEGER,
    "from_address" TEXT NOT NULL DEFAULT '',
    "subject" TEXT NOT NULL DEFAULT '',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "platform_fetchmail_messages_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "platform_fetchmail_mailboxes_next_poll_at_idx" ON "platform_fetchmail_mailboxes"("next_poll_at");

-- CreateIndex
CREATE UNIQUE INDEX "platform_fetchmail_messages_agent_id_uid_validity_uid_key" ON "platform_fetchmail_messages"("agent_id", "uid_validity", "uid");

-- CreateIndex
CREATE UNIQUE INDEX "platform_fetchmail_messages_agent_id_message_id_key" ON "platform_fetchmail_messages"("agent_id", "message_id");

-- AddForeignKey
ALTER TABLE "platform_fetchmail_mailboxes" ADD CONSTRAINT "platform_fetchmail_mailboxes_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "platform_agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_fetchmail_messages" ADD CONSTRAINT "platform_fetchmail_messages_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "platform_agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;
