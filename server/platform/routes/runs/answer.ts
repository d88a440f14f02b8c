// POST /runs/{run_id}/answer: answer a pending question (or the plan approval) of a run.
import { UserScopeQuery } from "@inlay/core/schemas/common";
import { AnswerRequest as Answer, AnswerResult as Answered, RunIdParam } from "@inlay/core/schemas/runs";
import type { PlatformApp } from "../../context";
import { answerRun } from "../../services/runs/runs";
import { resolveScope } from "../../services/scope";
import { defineRoute, json, jsonBody } from "../define";
import { authOf, runServicesOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "answerRun",
  method: "post",
  path: "/runs/{run_id}/answer",
  tags: ["runs"],
  summary: "Answer a run's question",
  request: { params: RunIdParam, query: UserScopeQuery, body: jsonBody(Answer) },
  responses: { 200: json(Answered, "The answered request") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const scope = await resolveScope(servicesOf(c), authOf(c), c.req.valid("query").user_id);
    return c.json(await answerRun(runServicesOf(c), scope, c.req.valid("param").run_id, c.req.valid("json")), 200);
  });
}
