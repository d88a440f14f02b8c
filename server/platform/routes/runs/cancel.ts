// POST /runs/{run_id}/cancel: cancel an active run (409 once it is completed, failed or cancelled).
import { UserScopeQuery } from "@inlay/core/schemas/common";
import { Run, RunIdParam } from "@inlay/core/schemas/runs";
import type { PlatformApp } from "../../context";
import { cancelRun } from "../../services/runs/runs";
import { resolveScope } from "../../services/scope";
import { defineRoute, json } from "../define";
import { authOf, runServicesOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "cancelRun",
  method: "post",
  path: "/runs/{run_id}/cancel",
  tags: ["runs"],
  summary: "Cancel a run",
  request: { params: RunIdParam, query: UserScopeQuery },
  responses: { 200: json(Run, "The cancelled run") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const scope = await resolveScope(servicesOf(c), authOf(c), c.req.valid("query").user_id);
    return c.json(await cancelRun(runServicesOf(c), scope, c.req.valid("param").run_id), 200);
  });
}
