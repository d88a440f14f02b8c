// PATCH /runs/{run_id}/permission-mode: change the mode of a run that is not over (409 once it is).
// It applies from the run's next start of the agent loop: a resume after a pause, or a reply.
import { UserScopeQuery } from "@inlay/core/schemas/common";
import { PermissionModeChange, Run, RunIdParam } from "@inlay/core/schemas/runs";
import type { PlatformApp } from "../../context";
import { changePermissionMode } from "../../services/runs/run-conversation";
import { resolveScope } from "../../services/scope";
import { defineRoute, errorResponse, json, jsonBody } from "../define";
import { authOf, runServicesOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "changeRunPermissionMode",
  method: "patch",
  path: "/runs/{run_id}/permission-mode",
  tags: ["runs"],
  summary: "Change a run's permission mode",
  request: { params: RunIdParam, query: UserScopeQuery, body: jsonBody(PermissionModeChange) },
  responses: { 200: json(Run, "The run with its new mode"), 409: errorResponse("The run is already over") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const scope = await resolveScope(servicesOf(c), authOf(c), c.req.valid("query").user_id);
    const run = await changePermissionMode(runServicesOf(c), scope, c.req.valid("param").run_id, c.req.valid("json").permission_mode);
    return c.json(run, 200);
  });
}
