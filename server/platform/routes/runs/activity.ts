// GET /runs/activity: counts of the scope's open runs and of today's (UTC) outcomes.
import { UserScopeQuery } from "@inlay/core/schemas/common";
import { RunActivity } from "@inlay/core/schemas/runs";
import type { PlatformApp } from "../../context";
import { runActivity } from "../../services/runs/run-lists";
import { resolveScope } from "../../services/scope";
import { defineRoute, json } from "../define";
import { authOf, runServicesOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "getRunActivity",
  method: "get",
  path: "/runs/activity",
  tags: ["runs"],
  summary: "Run activity of the scope",
  request: { query: UserScopeQuery },
  responses: { 200: json(RunActivity, "Open runs by status and today's outcomes") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const scope = await resolveScope(servicesOf(c), authOf(c), c.req.valid("query").user_id, { strict: true });
    return c.json(await runActivity(runServicesOf(c), scope), 200);
  });
}
