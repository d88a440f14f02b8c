// Issue reports (/issue-reports, an Inlay extension): what agents filed with the report_issue tool,
// for the vendor to read and resolve. Request and response contracts.
import { z } from "zod";
import { IntId, PageQuery, QueryBoolean, Timestamp, UserId } from "./common";

export const ISSUE_SUMMARY_MAX_CHARS = 500;
export const ISSUE_DETAILS_MAX_CHARS = 5_000;

export const IssueReportStatus = z.enum(["open", "resolved"]);

export const IssueReport = z
  .object({
    id: z.number().int(),
    teammate_id: z.number().int().meta({ description: "The agent whose run reported it" }),
    run_id: z.number().int().nullable().meta({ description: "The run that reported it; null once that run is deleted" }),
    user_id: z.string().nullable().meta({ description: "The end-user scope of the run; null at the account level" }),
    summary: z.string(),
    details: z.string().nullable(),
    status: IssueReportStatus,
    created_at: Timestamp,
    resolved_at: Timestamp.nullable(),
  })
  .meta({ id: "IssueReport" });

export const ListIssueReportsQuery = PageQuery.extend({
  user_id: UserId.optional(),
  teammate_id: IntId.optional().meta({ description: "Only this agent's reports (an agent of the scope; else 404)" }),
  status: IssueReportStatus.optional(),
  include_end_users: QueryBoolean.optional().meta({
    description: "Without user_id: also the reports of every end-user's runs (default: account-level only); ignored with user_id",
  }),
});

export const IssueReportIdParam = z.object({ report_id: IntId });

export const UpdateIssueReportRequest = z.object({
  status: IssueReportStatus.meta({ description: "resolved closes it (sets resolved_at); open reopens it" }),
});
