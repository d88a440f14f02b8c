// GET /value/use-cases/{use_case_id}: one use case of the scope.
import { UserScopeQuery } from "@inlay/core/schemas/common";
import { UseCase, UseCaseIdParam } from "@inlay/core/schemas/value";
import type { PlatformApp } from "../../context";
import { getUseCase } from "../../services/agents/value";
import { defineRoute, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "getValueUseCase",
  method: "get",
  path: "/value/use-cases/{use_case_id}",
  tags: ["value"],
  summary: "Get a use case",
  request: { params: UseCaseIdParam, query: UserScopeQuery },
  responses: { 200: json(UseCase, "The use case") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    return c.json(await getUseCase(servicesOf(c), authOf(c), c.req.valid("query").user_id, c.req.valid("param").use_case_id), 200);
  });
}
