// GET /teammates: the earlier form of GET /agents.
import { Agent } from "@inlay/core/schemas/agents";
import { PageQuery, UserScopeQuery, listEnvelope } from "@inlay/core/schemas/common";
import type { PlatformApp } from "../../context";
import { listAgents } from "../../services/agents/agents";
import { resolveScope } from "../../services/scope";
import { defineRoute, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "listTeammates",
  method: "get",
  path: "/teammates",
  tags: ["teammates"],
  summary: "List teammates",
  request: { query: PageQuery.extend(UserScopeQuery.shape) },
  responses: { 200: json(listEnvelope(Agent), "A page of teammates") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const query = c.req.valid("query");
    const scope = await resolveScope(servicesOf(c), authOf(c), query.user_id, { strict: true });
    return c.json(await listAgents(servicesOf(c), scope, query), 200);
  });
}
