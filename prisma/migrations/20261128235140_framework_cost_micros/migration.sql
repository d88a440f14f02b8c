-- The framework's cost counters move from whole cents (each run rounded up to a cent) to micro-USD,
-- as the platform's ledger counts. Rows already stored keep their amount exactly: cents × 10,000.
-- AlterTable
ALTER TABLE "member_usage" RENAME COLUMN "cost_cents" TO "cost_micros";
ALTER TABLE "member_usage" ALTER COLUMN "cost_micros" TYPE BIGINT USING "cost_micros"::BIGINT * 10000;

-- AlterTable
ALTER TABLE "run_admissions" RENAME COLUMN "cost_cents" TO "cost_micros";
ALTER TABLE "run_admissions" ALTER COLUMN "cost_micros" TYPE BIGINT USING "cost_micros"::BIGINT * 10000;

-- AlterTable
ALTER TABLE "tenant_runs" RENAME COLUMN "cost_cents" TO "cost_micros";
ALTER TABLE "tenant_runs" ALTER COLUMN "cost_micros" TYPE BIGINT USING "cost_micros"::BIGINT * 10000;

-- AlterTable
ALTER TABLE "tenant_usage" RENAME COLUMN "cost_cents" TO "cost_micros";
ALTER TABLE "tenant_usage" ALTER COLUMN "cost_micros" TYPE BIGINT USING "cost_micros"::BIGINT * 10000;
