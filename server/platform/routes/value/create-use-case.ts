// POST /value/use-cases: a use case to track value against, in the caller's scope.
import { UserScopeQuery } from "@inlay/core/schemas/common";
import { CreateUseCaseRequest, UseCase } from "@inlay/core/schemas/value";
import type { PlatformApp } from "../../context";
import { pickUserId } from "../../services/scope";
import { createUseCase } from "../../services/agents/value";
import { defineRoute, json, jsonBody } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "createValueUseCase",
  method: "post",
  path: "/value/use-cases",
  tags: ["value"],
  summary: "Create a use case",
  request: { query: UserScopeQuery, body: jsonBody(CreateUseCaseRequest) },
  responses: { 201: json(UseCase, "The use case") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const body = c.req.valid("json");
    const userId = pickUserId(c.req.valid("query").user_id, body.user_id);
    return c.json(await createUseCase(servicesOf(c), authOf(c), userId, body), 201);
  });
}
