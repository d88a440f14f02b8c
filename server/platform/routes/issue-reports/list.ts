// GET /issue-reports (Inlay extension): what agents filed with report_issue, newest first.
import { listEnvelope } from "@inlay/core/schemas/common";
import { IssueReport, ListIssueReportsQuery } from "@inlay/core/schemas/issue-reports";
import type { PlatformApp } from "../../context";
import { listIssueReports } from "../../services/account/issue-reports";
import { resolveScope } from "../../services/scope";
import { defineRoute, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "listIssueReports",
  method: "get",
  path: "/issue-reports",
  tags: ["issue-reports"],
  summary: "List the issues agents reported (Inlay extension)",
  request: { query: ListIssueReportsQuery },
  responses: { 200: json(listEnvelope(IssueReport), "A page of issue reports") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const query = c.req.valid("query");
    const scope = await resolveScope(servicesOf(c), authOf(c), query.user_id);
    return c.json(await listIssueReports(servicesOf(c), scope, query), 200);
  });
}
