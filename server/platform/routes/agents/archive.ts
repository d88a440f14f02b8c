// DELETE /agents/{agent_id}: archive (soft delete); the agent can be unarchived.
import { AgentIdParam } from "@inlay/core/schemas/agents";
import { UserScopeQuery } from "@inlay/core/schemas/common";
import type { PlatformApp } from "../../context";
import { archiveAgent } from "../../services/agents/agents";
import { resolveScope } from "../../services/scope";
import { defineRoute, noContent } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "archiveAgent",
  method: "delete",
  path: "/agents/{agent_id}",
  tags: ["agents"],
  summary: "Archive an agent",
  request: { params: AgentIdParam, query: UserScopeQuery },
  responses: { 204: noContent },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const scope = await resolveScope(servicesOf(c), authOf(c), c.req.valid("query").user_id);
    await archiveAgent(servicesOf(c), scope, c.req.valid("param").agent_id);
    return c.body(null, 204);
  });
}
