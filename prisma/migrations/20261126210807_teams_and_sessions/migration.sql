-- CreateTable
CREATE TABLE "platform_sessions" (
    "id" SERIAL NOT NULL,
    "person_id" INTEGER NOT NULL,
    "account_id" INTEGER NOT NULL,
    "access_hash" TEXT NOT NULL,
    "refresh_hash" TEXT NOT NULL,
    "access_expires_at" TIMESTAMPTZ(3) NOT NULL,
    "refresh_expires_at" TIMESTAMPTZ(3) NOT NULL,
    "revoked_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "refreshed_at" TIMESTAMPTZ(3),

    CONSTRAINT "platform_sessions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "platform_team_members" (
    "id" SERIAL NOT NULL,
    "org_id" INTEGER NOT NULL,
    "member_account_id" INTEGER NOT NULL,
    "role" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "platform_team_members_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "platform_team_invites" (
    "id" SERIAL NOT NULL,
    "org_id" INTEGER NOT NULL,
    "email" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "invited_by_id" INTEGER,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "accepted_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "platform_team_invites_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "platform_sessions_access_hash_key" ON "platform_sessions"("access_hash");

-- CreateIndex
CREATE UNIQUE INDEX "platform_sessions_refresh_hash_key" ON "platform_sessions"("refresh_hash");

-- CreateIndex
CREATE INDEX "platform_sessions_person_id_idx" ON "platform_sessions"("person_id");

-- CreateIndex
CREATE INDEX "platform_sessions_account_id_idx" ON "platform_sessions"("account_id");

-- CreateIndex
CREATE INDEX "platform_team_members_member_account_id_idx" ON "platform_team_members"("member_account_id");

-- CreateIndex
CREATE UNIQUE INDEX "platform_team_members_org_id_member_account_id_key" ON "platform_team_members"("org_id", "member_account_id");

-- CreateIndex
CREATE UNIQUE INDEX "platform_team_invites_token_hash_key" ON "platform_team_invites"("token_hash");

-- CreateIndex
CREATE INDEX "platform_team_invites_org_id_idx" ON "platform_team_invites"("org_id");

-- AddForeignKey
ALTER TABLE "platform_sessions" ADD CONSTRAINT "platform_sessions_person_id_fkey" FOREIGN KEY ("person_id") REFERENCES "platform_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_sessions" ADD CONSTRAINT "platform_sessions_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "platform_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_team_members" ADD CONSTRAINT "platform_team_members_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "platform_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_team_members" ADD CONSTRAINT "platform_team_members_member_account_id_fkey" FOREIGN KEY ("member_account_id") REFERENCES "platform_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_team_invites" ADD CONSTRAINT "platform_team_invites_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "platform_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_team_invites" ADD CONSTRAINT "platform_team_invites_invited_by_id_fkey" FOREIGN KEY ("invited_by_id") REFERENCES "platform_accounts"("id") ON DELETE SET NULL ON UPDATE CASCADE;
