// POST /agents: create an agent (every field optional).
import { Agent, AgentCreate } from "@inlay/core/schemas/agents";
import { UserScopeQuery } from "@inlay/core/schemas/common";
import type { PlatformApp } from "../../context";
import { createAgent } from "../../services/agents/agents";
import { pickUserId, resolveScope } from "../../services/scope";
import { defineRoute, json, jsonBody } from "../define";
import { authOf, baseUrlOf, servicesOf, servicesWithJobsOf } from "../request";

export const route = defineRoute({
  operationId: "createAgent",
  method: "post",
  path: "/agents",
  tags: ["agents"],
  summary: "Create an agent",
  request: { query: UserScopeQuery, body: jsonBody(AgentCreate, { required: false }) },
  responses: { 201: json(Agent, "The agent; with webhook: true, its webhook_url (shown this once)") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const body = c.req.valid("json");
    const userId = pickUserId(c.req.valid("query").user_id, body.user_id);
    const scope = await resolveScope(servicesOf(c), authOf(c), userId, { strict: true });
    return c.json(await createAgent(servicesWithJobsOf(c), scope, body, baseUrlOf(c)), 201);
  });
}
