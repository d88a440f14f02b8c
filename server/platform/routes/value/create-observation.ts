// POST /value/use-cases/{use_case_id}/observations: a sourced outcome, pending until confirmed.
import { UserScopeQuery } from "@inlay/core/schemas/common";
import { CreateObservationRequest, Observation, UseCaseIdParam } from "@inlay/core/schemas/value";
import type { PlatformApp } from "../../context";
import { createObservation } from "../../services/agents/value";
import { pickUserId } from "../../services/scope";
import { defineRoute, errorResponse, json, jsonBody } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "createValueObservation",
  method: "post",
  path: "/value/use-cases/{use_case_id}/observations",
  tags: ["value"],
  summary: "Record an observation",
  request: { params: UseCaseIdParam, query: UserScopeQuery, body: jsonBody(CreateObservationRequest) },
  responses: {
    201: json(Observation, "The observation (status pending)"),
    409: errorResponse("use_case_archived: the use case is archived"),
  },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const body = c.req.valid("json");
    const userId = pickUserId(c.req.valid("query").user_id, body.user_id);
    const created = await createObservation(servicesOf(c), authOf(c), userId, c.req.valid("param").use_case_id, body);
    return c.json(created, 201);
  });
}
