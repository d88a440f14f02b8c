// client.issueReports: /issue-reports (an Inlay extension), the issues agents filed with their
// report_issue tool. user_id goes in the query; a forUser client sees that end-user's reports, the
// account view the account-level ones (or every end-user's with include_end_users).
import { collect, type PagePromise } from "../pagination";
import type { RequestOptions } from "../transport";
import type { IssueReport, IssueReportListParams, IssueReportUpdateParams } from "../types";
import { Resource, segment } from "./resource";

export class IssueReports extends Resource {
  /** GET /issue-reports: one page (newest first), or every report when iterated. */
  list(params?: IssueReportListParams, options?: RequestOptions): PagePromise<IssueReport> {
    return this.paged({ path: "/issue-reports", userId: "query" }, params, options);
  }
  listAll(params?: IssueReportListParams, options?: RequestOptions): Promise<IssueReport[]> {
    return collect(this.list(params, options));
  }

  /** GET /issue-reports/{report_id} */
  get(reportId: number, options?: RequestOptions): Promise<IssueReport> {
    return this.transport.json({ method: "GET", path: `/issue-reports/${segment(reportId)}`, userId: "query" }, options);
  }

  /** PATCH /issue-reports/{report_id}: `status` resolved (sets resolved_at) or open (reopens). */
  update(reportId: number, params: IssueReportUpdateParams, options?: RequestOptions): Promise<IssueReport> {
    return this.transport.json({ method: "PATCH", path: `/issue-reports/${segment(reportId)}`, body: params, userId: "query" }, options);
  }
}
