// GET /runs/{run_id}/permissions: the run's permission requests, pending and resolved.
import { z } from "zod";
import { UserScopeQuery } from "@inlay/core/schemas/common";
import { PermissionRequest, RunIdParam } from "@inlay/core/schemas/runs";
import type { PlatformApp } from "../../context";
import { listPermissionRequests } from "../../services/runs/runs";
import { resolveScope } from "../../services/scope";
import { defineRoute, json } from "../define";
import { authOf, runServicesOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "listRunPermissions",
  method: "get",
  path: "/runs/{run_id}/permissions",
  tags: ["runs"],
  summary: "List a run's permission requests",
  request: { params: RunIdParam, query: UserScopeQuery },
  responses: { 200: json(z.object({ data: z.array(PermissionRequest), has_more: z.boolean() }), "Permission requests") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const scope = await resolveScope(servicesOf(c), authOf(c), c.req.valid("query").user_id);
    return c.json(await listPermissionRequests(runServicesOf(c), scope, c.req.valid("param").run_id), 200);
  });
}
