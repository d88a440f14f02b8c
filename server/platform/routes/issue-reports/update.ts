// PATCH /issue-reports/{report_id} (Inlay extension): resolve a report, or reopen it.
import { UserScopeQuery } from "@inlay/core/schemas/common";
import { IssueReport, IssueReportIdParam, UpdateIssueReportRequest } from "@inlay/core/schemas/issue-reports";
import type { PlatformApp } from "../../context";
import { updateIssueReport } from "../../services/account/issue-reports";
import { resolveScope } from "../../services/scope";
import { defineRoute, json, jsonBody } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "updateIssueReport",
  method: "patch",
  path: "/issue-reports/{report_id}",
  tags: ["issue-reports"],
  summary: "Resolve or reopen an issue an agent reported (Inlay extension)",
  request: { params: IssueReportIdParam, query: UserScopeQuery, body: jsonBody(UpdateIssueReportRequest) },
  responses: { 200: json(IssueReport, "The issue report") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const scope = await resolveScope(servicesOf(c), authOf(c), c.req.valid("query").user_id);
    return c.json(await updateIssueReport(servicesOf(c), scope, c.req.valid("param").report_id, c.req.valid("json")), 200);
  });
}
