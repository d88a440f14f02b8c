-- The development demo app (server/demo-app): its authorization codes and tokens (hashes only) and notes.
-- CreateTable
CREATE TABLE "demo_app_codes" (
    "code_hash" TEXT NOT NULL,
    "user_id" UUID NOT NULL,
    "redirect_uri" TEXT NOT NULL,
    "code_challenge" TEXT NOT NULL,
    "scope" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "demo_app_codes_pkey" PRIMARY KEY ("code_hash")
);

-- CreateTable
CREATE TABLE "demo_app_tokens" (
    "token_hash" TEXT NOT NULL,
    "grant_id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "user_id" UUID NOT NULL,
    "scope" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "demo_app_tokens_pkey" PRIMARY KEY ("token_hash")
);

-- CreateTable
CREATE TABLE "demo_app_notes" (
    "id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "text" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "demo_app_notes_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "demo_app_tokens_grant_id_idx" ON "demo_app_tokens"("grant_id");

-- CreateIndex
CREATE INDEX "demo_app_notes_user_id_created_at_idx" ON "demo_app_notes"("user_id", "created_at");

-- AddForeignKey
ALTER TABLE "demo_app_codes" ADD CONSTRAINT "demo_app_codes_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "demo_app_tokens" ADD CONSTRAINT "demo_app_tokens_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "demo_app_notes" ADD CONSTRAINT "demo_app_notes_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
