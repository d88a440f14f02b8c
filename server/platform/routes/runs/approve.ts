// POST /runs/{run_id}/approve: allow or deny a pending tool call.
import { UserScopeQuery } from "@inlay/core/schemas/common";
import { ApprovalResult as Approved, ApproveRequest as Approve, RunIdParam } from "@inlay/core/schemas/runs";
import type { PlatformApp } from "../../context";
import { approveRequest } from "../../services/runs/runs";
import { resolveScope } from "../../services/scope";
import { defineRoute, json, jsonBody } from "../define";
import { authOf, runServicesOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "approveRun",
  method: "post",
  path: "/runs/{run_id}/approve",
  tags: ["runs"],
  summary: "Decide a pending permission request",
  request: { params: RunIdParam, query: UserScopeQuery, body: jsonBody(Approve) },
  responses: { 200: json(Approved, "The request, now allowed or denied") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const scope = await resolveScope(servicesOf(c), authOf(c), c.req.valid("query").user_id);
    const result = await approveRequest(runServicesOf(c), scope, c.req.valid("param").run_id, c.req.valid("json"));
    return c.json({ ...result, status: result.status as "allowed" | "denied" }, 200);
  });
}
