// GET /value/use-cases/{use_case_id}/observations: the use case's observations, newest first.
import { listEnvelope } from "@inlay/core/schemas/common";
import { ListObservationsQuery, Observation, UseCaseIdParam } from "@inlay/core/schemas/value";
import type { PlatformApp } from "../../context";
import { listObservations } from "../../services/agents/value";
import { defineRoute, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "listValueObservations",
  method: "get",
  path: "/value/use-cases/{use_case_id}/observations",
  tags: ["value"],
  summary: "List a use case's observations",
  request: { params: UseCaseIdParam, query: ListObservationsQuery },
  responses: { 200: json(listEnvelope(Observation), "A page of observations") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const { user_id, limit, starting_after } = c.req.valid("query");
    const page = await listObservations(servicesOf(c), authOf(c), user_id, c.req.valid("param").use_case_id, {
      limit,
      startingAfter: starting_after,
    });
    return c.json(page, 200);
  });
}
