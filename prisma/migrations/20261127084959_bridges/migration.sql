-- CreateTable
CREATE TABLE "platform_bridges" (
    "id" SERIAL NOT NULL,
    "account_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "server_url" TEXT NOT NULL,
    "password_sealed" TEXT NOT NULL,
    "owner_handle" TEXT,
    "status" TEXT NOT NULL DEFAULT 'active',
    "inbound_secret_hash" TEXT,
    "secret_rotated_at" TIMESTAMPTZ(3),
    "link_code_hash" TEXT,
    "link_code_expires_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "platform_bridges_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "platform_bridge_handles" (
    "id" SERIAL NOT NULL,
    "bridge_id" INTEGER NOT NULL,
    "handle" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "platform_bridge_handles_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "platform_bridge_messages" (
    "id" SERIAL NOT NULL,
    "account_id" INTEGER NOT NULL,
    "bridge_id" INTEGER NOT NULL,
    "direction" TEXT NOT NULL,
    "agent_id" INTEGER,
    "run_id" INTEGER,
    "status" TEXT NOT NULL,
    "reason" TEXT,
    "handle" TEXT NOT NULL,
    "chat_guid" TEXT NOT NULL,
    "message_guid" TEXT,
    "answers_id" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "platform_bridge_messages_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "platform_bridges_account_id_id_idx" ON "platform_bridges"("account_id", "id");

-- CreateIndex
CREATE UNIQUE INDEX "platform_bridge_handles_bridge_id_handle_key" ON "platform_bridge_handles"("bridge_id", "handle");

-- CreateIndex
CREATE UNIQUE INDEX "platform_bridge_messages_answers_id_key" ON "platform_bridge_messages"("answers_id");

-- CreateIndex
CREATE INDEX "platform_bridge_messages_bridge_id_chat_guid_id_idx" ON "platform_bridge_messages"("bridge_id", "chat_guid", "id");

-- CreateIndex
CREATE INDEX "platform_bridge_messages_bridge_id_message_guid_idx" ON "platform_bridge_messages"("bridge_id", "message_guid");

-- CreateIndex
CREATE INDEX "platform_agents_bridge_id_idx" ON "platform_agents"("bridge_id");

-- AddForeignKey
ALTER TABLE "platform_agents" ADD CONSTRAINT "platform_agents_bridge_id_fkey" FOREIGN KEY ("bridge_id") REFERENCES "platform_bridges"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_bridges" ADD CONSTRAINT "platform_bridges_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "platform_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_bridge_handles" ADD CONSTRAINT "platform_bridge_handles_bridge_id_fkey" FOREIGN KEY ("bridge_id") REFERENCES "platform_bridges"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_bridge_messages" ADD CONSTRAINT "platform_bridge_messages_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "platform_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_bridge_messages" ADD CONSTRAINT "platform_bridge_messages_bridge_id_fkey" FOREIGN KEY ("bridge_id") REFERENCES "platform_bridges"("id") ON DELETE CASCADE ON UPDATE CASCADE;
