-- CreateTable
CREATE TABLE "platform_agent_issue_reports" (
    "id" SERIAL NOT NULL,
    "account_id" INTEGER NOT NULL,
    "end_user_id" INTEGER,
    "agent_id" INTEGER NOT NULL,
    "run_id" INTEGER,
    "summary" TEXT NOT NULL,
    "details" TEXT,
    "status" TEXT NOT NULL DEFAULT 'open',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "resolved_at" TIMESTAMPTZ(3),

    CONSTRAINT "platform_agent_issue_reports_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "platform_agent_issue_reports_account_id_end_user_id_id_idx" ON "platform_agent_issue_reports"("account_id", "end_user_id", "id");

-- CreateIndex
CREATE INDEX "platform_agent_issue_reports_agent_id_id_idx" ON "platform_agent_issue_reports"("agent_id", "id");

-- AddForeignKey
ALTER TABLE "platform_agent_issue_reports" ADD CONSTRAINT "platform_agent_issue_reports_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "platform_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_agent_issue_reports" ADD CONSTRAINT "platform_agent_issue_reports_end_user_id_fkey" FOREIGN KEY ("end_user_id") REFERENCES "platform_end_users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_agent_issue_reports" ADD CONSTRAINT "platform_agent_issue_reports_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "platform_agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "platform_agent_issue_reports" ADD CONSTRAINT "platform_agent_issue_reports_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "platform_runs"("id") ON DELETE SET NULL ON UPDATE CASCADE;
