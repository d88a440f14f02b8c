// POST /value/use-cases/{use_case_id}/runs: links runs of the scope, whose cost the report counts.
import { UserScopeQuery } from "@inlay/core/schemas/common";
import { LinkedRuns, LinkRunsRequest, UseCaseIdParam } from "@inlay/core/schemas/value";
import type { PlatformApp } from "../../context";
import { linkRuns } from "../../services/agents/value";
import { pickUserId } from "../../services/scope";
import { defineRoute, errorResponse, json, jsonBody } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "linkValueRuns",
  method: "post",
  path: "/value/use-cases/{use_case_id}/runs",
  tags: ["value"],
  summary: "Link runs to a use case",
  request: { params: UseCaseIdParam, query: UserScopeQuery, body: jsonBody(LinkRunsRequest) },
  responses: {
    200: json(LinkedRuns, "The runs linked"),
    409: errorResponse("use_case_archived: the use case is archived"),
  },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const body = c.req.valid("json");
    const userId = pickUserId(c.req.valid("query").user_id, body.user_id);
    const linked = await linkRuns(servicesOf(c), authOf(c), userId, c.req.valid("param").use_case_id, body.run_ids);
    return c.json(linked, 200);
  });
}
