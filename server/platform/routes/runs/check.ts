// GET /runs/check: a cheap freshness check to poll; refetch GET /runs when latest_updated_at moves.
import { UserScopeQuery } from "@inlay/core/schemas/common";
import { RunCheck } from "@inlay/core/schemas/runs";
import type { PlatformApp } from "../../context";
import { checkRuns } from "../../services/runs/run-lists";
import { resolveScope } from "../../services/scope";
import { defineRoute, json } from "../define";
import { authOf, runServicesOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "checkRuns",
  method: "get",
  path: "/runs/check",
  tags: ["runs"],
  summary: "Freshness check of the scope's runs",
  request: { query: UserScopeQuery },
  responses: { 200: json(RunCheck, "The newest run and change, and how many runs wait for a person") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const scope = await resolveScope(servicesOf(c), authOf(c), c.req.valid("query").user_id, { strict: true });
    return c.json(await checkRuns(runServicesOf(c), scope), 200);
  });
}
