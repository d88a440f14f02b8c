// GET /runs/{run_id}: one run of the scope.
import { UserScopeQuery } from "@inlay/core/schemas/common";
import { Run, RunIdParam } from "@inlay/core/schemas/runs";
import type { PlatformApp } from "../../context";
import { getRun } from "../../services/runs/runs";
import { resolveScope } from "../../services/scope";
import { defineRoute, json } from "../define";
import { authOf, runServicesOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "getRun",
  method: "get",
  path: "/runs/{run_id}",
  tags: ["runs"],
  summary: "Get a run",
  request: { params: RunIdParam, query: UserScopeQuery },
  responses: { 200: json(Run, "The run") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const scope = await resolveScope(servicesOf(c), authOf(c), c.req.valid("query").user_id);
    return c.json(await getRun(runServicesOf(c), scope, c.req.valid("param").run_id), 200);
  });
}
