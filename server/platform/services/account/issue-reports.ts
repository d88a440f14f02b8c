// Issue reports: what an agent's report_issue tool files (stored, and mailed to the account's owner),
// listed and resolved by the vendor through /issue-reports (an Inlay extension). Scoped like runs: a
// report belongs to its run's end-user scope; another account's or end-user's is 404.
import type { z } from "zod";
import type { Page } from "@inlay/core/schemas/common";
import type { IssueReport, ListIssueReportsQuery, UpdateIssueReportRequest } from "@inlay/core/schemas/issue-reports";
import type { Db } from "../../repositories/db";
import { PlatformError } from "../../errors";
import * as reports from "../../repositories/issue-reports";
import type { IssueReportRow } from "../../repositories/issue-reports";
import type { DataContext } from "../../infrastructure/hot-cache";
import { findScopedAgent } from "../agents/agents";
import type { Mailer } from "../messaging/mailer";
import { toPage } from "../pagination";
import type { Scope } from "../scope";

type IssueReportOut = z.infer<typeof IssueReport>;

const toIssueReport = (row: IssueReportRow): IssueReportOut => ({
  id: row.id,
  teammate_id: row.agentId,
  run_id: row.runId,
  user_id: row.endUser?.externalId ?? null,
  summary: row.summary,
  details: row.details,
  status: row.status === "resolved" ? "resolved" : "open",
  created_at: row.createdAt.toISOString(),
  resolved_at: row.resolvedAt?.toISOString() ?? null,
});

/**
 * The report_issue tool: stores the report in the run's scope, then mails the account's owner as
 * before. Stored first, so a mail that fails to queue does not lose it.
 */
export async function fileIssueReport(
  deps: { prisma: Db; mailer: Mailer; accountEmail: () => Promise<string> },
  run: { accountId: number; endUserId: number | null; agentId: number; runId: number },
  input: { summary: string; details?: string },
) {
  const row = await reports.insertIssueReport(deps.prisma, { ...run, summary: input.summary, details: input.details ?? null });
  await deps.mailer.send(deps.prisma, {
    accountId: run.accountId,
    to: await deps.accountEmail(),
    subject: `Agent reported an issue: ${input.summary}`,
    text: `Run ${run.runId} reported:\n\n${input.summary}\n\n${input.details ?? ""}`,
    kind: "agent_issue",
  });
  return { reported: true, report_id: row.id };
}

export async function listIssueReports(
  ctx: DataContext,
  scope: Scope,
  query: z.infer<typeof ListIssueReportsQuery>,
): Promise<Page<IssueReportOut>> {
  // A named agent must be one of the scope's (else 404, like every agent lookup).
  if (query.teammate_id !== undefined && !(await findScopedAgent(ctx, scope, query.teammate_id, { includeArchived: true }))) {
    throw new PlatformError({ type: "not_found", message: `agent ${query.teammate_id} not found` });
  }
  const rows = await reports.listIssueReports(
    ctx.prisma,
    { accountId: scope.accountId, endUserId: scope.endUserId, allEndUsers: scope.endUserId === null && query.include_end_users === true },
    { agentId: query.teammate_id, status: query.status },
    { limit: query.limit, startingAfter: query.starting_after },
  );
  return toPage(rows, query.limit, toIssueReport);
}

async function loadReport(ctx: DataContext, scope: Scope, id: number) {
  const row = await reports.findIssueReport(ctx.prisma, scope, id);
  if (!row) throw new PlatformError({ type: "not_found", message: `issue report ${id} not found` });
  return row;
}

export const getIssueReport = async (ctx: DataContext, scope: Scope, id: number) => toIssueReport(await loadReport(ctx, scope, id));

export async function updateIssueReport(ctx: DataContext, scope: Scope, id: number, input: z.infer<typeof UpdateIssueReportRequest>) {
  const row = await loadReport(ctx, scope, id);
  // Resolving a resolved report keeps its first resolved_at.
  if (row.status === input.status) return toIssueReport(row);
  return toIssueReport(await reports.updateIssueReportStatus(ctx.prisma, row.id, input.status));
}
