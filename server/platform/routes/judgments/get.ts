// GET /judgments/{judgment_id}: a saved result, without a new provider call (user_id: the original one).
import { UserScopeQuery } from "@inlay/core/schemas/common";
import { Judgment, JudgmentIdParam } from "@inlay/core/schemas/judgments";
import type { PlatformApp } from "../../context";
import { getJudgment } from "../../services/models/judgments";
import { defineRoute, errorResponse, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "getJudgment",
  method: "get",
  path: "/judgments/{judgment_id}",
  tags: ["judgments"],
  summary: "Get a judgment",
  request: { params: JudgmentIdParam, query: UserScopeQuery },
  responses: {
    200: json(Judgment, "The judgment as first returned"),
    410: errorResponse("result_not_retained: expired (30 days) or kept as metadata only"),
  },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) =>
    c.json(await getJudgment(servicesOf(c), authOf(c), c.req.valid("query").user_id, c.req.valid("param").judgment_id), 200),
  );
}
