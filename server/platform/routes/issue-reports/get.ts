// GET /issue-reports/{report_id} (Inlay extension): one report of the scope.
import { UserScopeQuery } from "@inlay/core/schemas/common";
import { IssueReport, IssueReportIdParam } from "@inlay/core/schemas/issue-reports";
import type { PlatformApp } from "../../context";
import { getIssueReport } from "../../services/account/issue-reports";
import { resolveScope } from "../../services/scope";
import { defineRoute, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "getIssueReport",
  method: "get",
  path: "/issue-reports/{report_id}",
  tags: ["issue-reports"],
  summary: "Get an issue an agent reported (Inlay extension)",
  request: { params: IssueReportIdParam, query: UserScopeQuery },
  responses: { 200: json(IssueReport, "The issue report") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const scope = await resolveScope(servicesOf(c), authOf(c), c.req.valid("query").user_id);
    return c.json(await getIssueReport(servicesOf(c), scope, c.req.valid("param").report_id), 200);
  });
}
