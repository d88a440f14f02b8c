// POST /agents/{agent_id}/reset: drop overrides (named fields, or all) back to template or defaults.
import { Agent, AgentIdParam, AgentReset } from "@inlay/core/schemas/agents";
import { UserScopeQuery } from "@inlay/core/schemas/common";
import type { PlatformApp } from "../../context";
import { resetAgent } from "../../services/agents/agents";
import { resolveScope } from "../../services/scope";
import { defineRoute, json, jsonBody } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "resetAgent",
  method: "post",
  path: "/agents/{agent_id}/reset",
  tags: ["agents"],
  summary: "Reset an agent's overrides",
  request: { params: AgentIdParam, query: UserScopeQuery, body: jsonBody(AgentReset, { required: false }) },
  responses: { 200: json(Agent, "The agent") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const scope = await resolveScope(servicesOf(c), authOf(c), c.req.valid("query").user_id);
    return c.json(await resetAgent(servicesOf(c), scope, c.req.valid("param").agent_id, c.req.valid("json").fields), 200);
  });
}
