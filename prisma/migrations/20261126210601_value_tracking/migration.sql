-- CreateTable
CREATE TABLE "platform_value_use_cases" (
    "id" SERIAL NOT NULL,
    "account_id" INTEGER NOT NULL,
    "end_user_id" INTEGER,
    "name" TEXT NOT NULL,
    "goal" TEXT NOT NULL,
    "measurement_model" JSONB,
    "responsible_user_id" INTEGER,
    "source_run_id" INTEGER,
    "status" TEXT NOT NULL DEFAULT 'active',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "platform_value_use_cases_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "platform_value_observations" (
    "id" SERIAL NOT NULL,
    "use_case_id" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "evidence_level" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "amount_micros" BIGINT,
    "metric_name" TEXT,
    "metric_value" DOUBLE PRECISION,
    "metric_unit" TEXT,
    "evidence" JSONB NOT NULL,
    "source_run_id" INTEGER,
    "observed_at" TIMESTAMPTZ(3) NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "decided_by_key_id" INTEGER,
    "decided_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "platform_value_observations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "platform_value_run_links" (
    "use_case_id" INTEGER NOT NULL,
    "run_id" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "platform_value_run_links_pkey" PRIMARY KEY ("use_case_id","run_id")
);

-- CreateIndex
CREATE INDEX "platform_value_use_cases_account_id_end_user_id_id_idx" ON "platform_value_use_cases"("account_id", "end_user_id", "id");

-- CreateIndex
CREATE INDEX "platform_value_observations_use_case_id_id_idx" ON "platform_value_observations"("use_case_id", "id");

-- CreateIndex
CREATE INDEX "platform_value_observations_use_case_id_observed_at_idx" ON "platform_value_observations"("use_case_id", "observed_at");

-- CreateIndex
CREATE INDEX "platform_value_run_links_run_id_idx" ON "platform_value_run_links"("run_id");

-- AddForeignKey
ALTER TABLE "platform_value_use_cases" ADD CONSTRAINT "platform_value_use_cases_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "platform_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_value_use_cases" ADD CONSTRAINT "platform_value_use_cases_end_user_id_fkey" FOREIGN KEY ("end_user_id") REFERENCES "platform_end_users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_value_observations" ADD CONSTRAINT "platform_value_observations_use_case_id_fkey" FOREIGN KEY ("use_case_id") REFERENCES "platform_value_use_cases"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_value_run_links" ADD CONSTRAINT "platform_value_run_links_use_case_id_fkey" FOREIGN KEY ("use_case_id") REFERENCES "platform_value_use_cases"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_value_run_links" ADD CONSTRAINT "platform_value_run_links_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "platform_runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
