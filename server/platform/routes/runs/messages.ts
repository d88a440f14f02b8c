// GET /runs/{run_id}/messages: the run's conversation as turns (what the end-user sent, the agent's
// text). An Inlay extension; see docs/platform-api.md.
import { UserScopeQuery } from "@inlay/core/schemas/common";
import { RunIdParam, RunMessages } from "@inlay/core/schemas/runs";
import type { PlatformApp } from "../../context";
import { listRunMessages } from "../../services/runs/run-messages";
import { resolveScope } from "../../services/scope";
import { defineRoute, json } from "../define";
import { authOf, runServicesOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "listRunMessages",
  method: "get",
  path: "/runs/{run_id}/messages",
  tags: ["runs"],
  summary: "List a run's conversation turns",
  request: { params: RunIdParam, query: UserScopeQuery },
  responses: { 200: json(RunMessages, "The run's turns, in order") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const scope = await resolveScope(servicesOf(c), authOf(c), c.req.valid("query").user_id);
    return c.json(await listRunMessages(runServicesOf(c), scope, c.req.valid("param").run_id), 200);
  });
}
