// GET /agents/{agent_id}: one agent of the scope.
import { Agent, AgentIdParam } from "@inlay/core/schemas/agents";
import { UserScopeQuery } from "@inlay/core/schemas/common";
import type { PlatformApp } from "../../context";
import { getAgent } from "../../services/agents/agents";
import { resolveScope } from "../../services/scope";
import { defineRoute, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "getAgent",
  method: "get",
  path: "/agents/{agent_id}",
  tags: ["agents"],
  summary: "Get an agent",
  request: { params: AgentIdParam, query: UserScopeQuery },
  responses: { 200: json(Agent, "The agent") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const scope = await resolveScope(servicesOf(c), authOf(c), c.req.valid("query").user_id);
    return c.json(await getAgent(servicesOf(c), scope, c.req.valid("param").agent_id), 200);
  });
}
