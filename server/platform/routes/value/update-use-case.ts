// PATCH /value/use-cases/{use_case_id}: name, goal, measurement_model, responsible_user_id, status.
import { UserScopeQuery } from "@inlay/core/schemas/common";
import { UpdateUseCaseRequest, UseCase, UseCaseIdParam } from "@inlay/core/schemas/value";
import type { PlatformApp } from "../../context";
import { updateUseCase } from "../../services/agents/value";
import { pickUserId } from "../../services/scope";
import { defineRoute, json, jsonBody } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "updateValueUseCase",
  method: "patch",
  path: "/value/use-cases/{use_case_id}",
  tags: ["value"],
  summary: "Update a use case",
  request: { params: UseCaseIdParam, query: UserScopeQuery, body: jsonBody(UpdateUseCaseRequest, { required: false }) },
  responses: { 200: json(UseCase, "The use case") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const body = c.req.valid("json") ?? {};
    const userId = pickUserId(c.req.valid("query").user_id, body.user_id);
    const updated = await updateUseCase(servicesOf(c), authOf(c), userId, c.req.valid("param").use_case_id, body);
    return c.json(updated, 200);
  });
}
