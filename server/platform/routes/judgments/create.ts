// POST /judgments: an advisory verdict (decide: typed questions about state; verify: claims against evidence).
import { UserScopeQuery } from "@inlay/core/schemas/common";
import { CreateJudgmentRequest, Judgment } from "@inlay/core/schemas/judgments";
import type { PlatformApp } from "../../context";
import { readIdempotentCall } from "../../middleware/idempotency";
import { createJudgment } from "../../services/models/judgments";
import { pickUserId } from "../../services/scope";
import { defineRoute, errorResponse, json, jsonBody } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "createJudgment",
  method: "post",
  path: "/judgments",
  tags: ["judgments"],
  summary: "Make a judgment",
  request: { query: UserScopeQuery, body: jsonBody(CreateJudgmentRequest) },
  responses: {
    200: json(Judgment, "The judgment (a replay of the same Idempotency-Key and request carries Idempotent-Replay: true)"),
    409: errorResponse("idempotency_key_reuse, idempotency_key_in_progress or idempotency_key_failed"),
    410: errorResponse("result_not_retained: a replay of a metadata-only judgment"),
    503: errorResponse("judgments_disabled, judge_unavailable or judge_failed"),
  },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const body = c.req.valid("json");
    const userId = pickUserId(c.req.valid("query").user_id, body.user_id);
    const services = { ...servicesOf(c), languageModel: c.var.deps.languageModel };
    const { judgment, replay } = await createJudgment(services, authOf(c), { ...body, user_id: userId }, await readIdempotentCall(c));
    return c.json(judgment, 200, replay ? { "idempotent-replay": "true" } : {});
  });
}
