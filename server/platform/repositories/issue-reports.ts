// Issue reports of agents (report_issue). The only module that touches platform_agent_issue_reports.
// Every query names the account and the end-user scope, so a foreign id is simply not found.
import type { PrismaClient } from "@/server/generated/prisma/client";

const withUserId = { endUser: { select: { externalId: true } } } as const;

export type IssueReportRow = Awaited<ReturnType<typeof insertIssueReport>>;

export interface IssueReportScope {
  accountId: number;
  endUserId: number | null;
  /** Account-level only: every end-user's reports too. */
  allEndUsers?: boolean;
}

const scoped = (scope: IssueReportScope) =>
  scope.allEndUsers ? { accountId: scope.accountId } : { accountId: scope.accountId, endUserId: scope.endUserId };

export const insertIssueReport = (
  prisma: PrismaClient,
  report: { accountId: number; endUserId: number | null; agentId: number; runId: number; summary: string; details: string | null },
) => prisma.platformAgentIssueReport.create({ data: report, include: withUserId });

/** Newest first, after the cursor; limit + 1 rows so the caller can tell has_more. */
export const listIssueReports = (
  prisma: PrismaClient,
  scope: IssueReportScope,
  filter: { agentId?: number; status?: string },
  page: { limit: number; startingAfter?: number },
) =>
  prisma.platformAgentIssueReport.findMany({
    where: {
      ...scoped(scope),
      ...(filter.agentId !== undefined ? { agentId: filter.agentId } : {}),
      ...(filter.status !== undefined ? { status: filter.status } : {}),
      ...(page.startingAfter !== undefined ? { id: { lt: page.startingAfter } } : {}),
    },
    orderBy: { id: "desc" },
    take: page.limit + 1,
    include: withUserId,
  });

export const findIssueReport = (prisma: PrismaClient, scope: IssueReportScope, id: number) =>
  prisma.platformAgentIssueReport.findFirst({ where: { ...scoped(scope), id }, include: withUserId });

/** Called with a report found in the caller's scope (findIssueReport). */
export const updateIssueReportStatus = (prisma: PrismaClient, id: number, status: string) =>
  prisma.platformAgentIssueReport.update({
    where: { id },
    data: { status, resolvedAt: status === "resolved" ? new Date() : null },
    include: withUserId,
  });
