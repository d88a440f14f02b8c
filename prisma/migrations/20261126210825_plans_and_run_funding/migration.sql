-- CreateTable
CREATE TABLE "platform_account_plans" (
    "account_id" INTEGER NOT NULL,
    "slug" TEXT NOT NULL,
    "billing_period" TEXT NOT NULL,
    "period_anchor" TIMESTAMPTZ(3) NOT NULL,
    "current_period_end" TIMESTAMPTZ(3),
    "trial_ends_at" TIMESTAMPTZ(3),
    "provider_subscription_id" TEXT,
    "overage_enabled" BOOLEAN NOT NULL DEFAULT false,
    "overage_cap_cents" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "platform_account_plans_pkey" PRIMARY KEY ("account_id")
);

-- CreateTable
CREATE TABLE "platform_run_fundings" (
    "run_id" INTEGER NOT NULL,
    "account_id" INTEGER NOT NULL,
    "meter" TEXT NOT NULL,
    "plan_slug" TEXT,
    "overage_cents" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "platform_run_fundings_pkey" PRIMARY KEY ("run_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "platform_account_plans_provider_subscription_id_key" ON "platform_account_plans"("provider_subscription_id");

-- CreateIndex
CREATE INDEX "platform_run_fundings_account_id_created_at_idx" ON "platform_run_fundings"("account_id", "created_at");

-- AddForeignKey
ALTER TABLE "platform_account_plans" ADD CONSTRAINT "platform_account_plans_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "platform_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_run_fundings" ADD CONSTRAINT "platform_run_fundings_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "platform_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_run_fundings" ADD CONSTRAINT "platform_run_fundings_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "platform_runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
