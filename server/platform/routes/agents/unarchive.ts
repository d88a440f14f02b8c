// POST /agents/{agent_id}/unarchive: bring an archived agent back (as disabled).
import { AgentIdParam, UnarchivedAgent } from "@inlay/core/schemas/agents";
import { UserScopeQuery } from "@inlay/core/schemas/common";
import type { PlatformApp } from "../../context";
import { unarchiveAgent } from "../../services/agents/agents";
import { resolveScope } from "../../services/scope";
import { defineRoute, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "unarchiveAgent",
  method: "post",
  path: "/agents/{agent_id}/unarchive",
  tags: ["agents"],
  summary: "Unarchive an agent",
  request: { params: AgentIdParam, query: UserScopeQuery },
  responses: { 200: json(UnarchivedAgent, "The agent's id, name, status and created_at") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const scope = await resolveScope(servicesOf(c), authOf(c), c.req.valid("query").user_id);
    return c.json(await unarchiveAgent(servicesOf(c), scope, c.req.valid("param").agent_id), 200);
  });
}
