-- CreateTable
CREATE TABLE "tenant_invites" (
    "id" UUID NOT NULL,
    "tenant_id" UUID NOT NULL,
    "email" TEXT NOT NULL,
    "role" "tenant_role" NOT NULL DEFAULT 'member',
    "token_hash" TEXT NOT NULL,
    "invited_by_id" UUID,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "accepted_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "tenant_invites_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "framework_mail" (
    "id" SERIAL NOT NULL,
    "tenant_id" UUID,
    "to" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "framework_mail_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tenant_limits" (
    "tenant_id" UUID NOT NULL,
    "runs_per_month" INTEGER,
    "cost_per_month_cents" INTEGER,
    "concurrent_runs" INTEGER,
    "turns_per_minute_per_member" INTEGER,
    "member_runs_per_month" INTEGER,
    "member_cost_per_month_cents" INTEGER,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "tenant_limits_pkey" PRIMARY KEY ("tenant_id")
);

-- CreateTable
CREATE TABLE "member_caps" (
    "membership_id" UUID NOT NULL,
    "runs_per_month" INTEGER,
    "cost_per_month_cents" INTEGER,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "member_caps_pkey" PRIMARY KEY ("membership_id")
);

-- CreateTable
CREATE TABLE "tenant_usage" (
    "tenant_id" UUID NOT NULL,
    "period" TEXT NOT NULL,
    "runs" INTEGER NOT NULL DEFAULT 0,
    "cost_cents" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "tenant_usage_pkey" PRIMARY KEY ("tenant_id","period")
);

-- CreateTable
CREATE TABLE "member_usage" (
    "tenant_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "period" TEXT NOT NULL,
    "runs" INTEGER NOT NULL DEFAULT 0,
    "cost_cents" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "member_usage_pkey" PRIMARY KEY ("tenant_id","user_id","period")
);

-- CreateTable
CREATE TABLE "tenant_concurrency" (
    "tenant_id" UUID NOT NULL,
    "active_runs" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "tenant_concurrency_pkey" PRIMARY KEY ("tenant_id")
);

-- CreateTable
CREATE TABLE "member_turn_windows" (
    "tenant_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "window_start" TIMESTAMPTZ(3) NOT NULL,
    "turns" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "member_turn_windows_pkey" PRIMARY KEY ("tenant_id","user_id")
);

-- CreateTable
CREATE TABLE "run_admissions" (
    "id" UUID NOT NULL,
    "tenant_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "period" TEXT NOT NULL,
    "admitted_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "released_at" TIMESTAMPTZ(3),
    "cost_cents" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "run_admissions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "tenant_invites_token_hash_key" ON "tenant_invites"("token_hash");

-- CreateIndex
CREATE INDEX "tenant_invites_tenant_id_idx" ON "tenant_invites"("tenant_id");

-- CreateIndex
CREATE INDEX "tenant_invites_email_idx" ON "tenant_invites"("email");

-- CreateIndex
CREATE INDEX "framework_mail_to_idx" ON "framework_mail"("to");

-- CreateIndex
CREATE INDEX "run_admissions_tenant_id_released_at_idx" ON "run_admissions"("tenant_id", "released_at");

-- AddForeignKey
ALTER TABLE "tenant_invites" ADD CONSTRAINT "tenant_invites_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tenant_invites" ADD CONSTRAINT "tenant_invites_invited_by_id_fkey" FOREIGN KEY ("invited_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "framework_mail" ADD CONSTRAINT "framework_mail_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tenant_limits" ADD CONSTRAINT "tenant_limits_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "member_caps" ADD CONSTRAINT "member_caps_membership_id_fkey" FOREIGN KEY ("membership_id") REFERENCES "memberships"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tenant_usage" ADD CONSTRAINT "tenant_usage_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "member_usage" ADD CONSTRAINT "member_usage_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "member_usage" ADD CONSTRAINT "member_usage_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tenant_concurrency" ADD CONSTRAINT "tenant_concurrency_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "member_turn_windows" ADD CONSTRAINT "member_turn_windows_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "member_turn_windows" ADD CONSTRAINT "member_turn_windows_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "run_admissions" ADD CONSTRAINT "run_admissions_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "run_admissions" ADD CONSTRAINT "run_admissions_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
