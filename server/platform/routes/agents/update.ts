// PATCH /agents/{agent_id}: change an agent (omitted fields stay; null as the spec says per field).
import { Agent, AgentIdParam, AgentUpdate } from "@inlay/core/schemas/agents";
import { UserScopeQuery } from "@inlay/core/schemas/common";
import type { PlatformApp } from "../../context";
import { patchAgent } from "../../services/agents/agents";
import { resolveScope } from "../../services/scope";
import { defineRoute, json, jsonBody } from "../define";
import { authOf, servicesOf, servicesWithJobsOf } from "../request";

export const route = defineRoute({
  operationId: "updateAgent",
  method: "patch",
  path: "/agents/{agent_id}",
  tags: ["agents"],
  summary: "Update an agent",
  request: { params: AgentIdParam, query: UserScopeQuery, body: jsonBody(AgentUpdate, { required: false }) },
  responses: { 200: json(Agent, "The agent") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const scope = await resolveScope(servicesOf(c), authOf(c), c.req.valid("query").user_id);
    return c.json(await patchAgent(servicesWithJobsOf(c), scope, c.req.valid("param").agent_id, c.req.valid("json")), 200);
  });
}
