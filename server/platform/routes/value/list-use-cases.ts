// GET /value/use-cases: the scope's use cases, newest first, optionally of one status.
import { listEnvelope } from "@inlay/core/schemas/common";
import { ListUseCasesQuery, UseCase } from "@inlay/core/schemas/value";
import type { PlatformApp } from "../../context";
import { listUseCases } from "../../services/agents/value";
import { defineRoute, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "listValueUseCases",
  method: "get",
  path: "/value/use-cases",
  tags: ["value"],
  summary: "List use cases",
  request: { query: ListUseCasesQuery },
  responses: { 200: json(listEnvelope(UseCase), "A page of use cases") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const { user_id, limit, starting_after, status } = c.req.valid("query");
    return c.json(await listUseCases(servicesOf(c), authOf(c), user_id, { limit, startingAfter: starting_after, status }), 200);
  });
}
