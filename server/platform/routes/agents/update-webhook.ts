// PATCH /agents/{agent_id}/webhook: pause (enabled: false) or resume (true) the agent's webhook; an
// agent without one gets it on true, and rotate: true replaces the URL (shown once in either case).
import { Agent, AgentIdParam, AgentWebhookUpdate } from "@inlay/core/schemas/agents";
import { UserScopeQuery } from "@inlay/core/schemas/common";
import type { PlatformApp } from "../../context";
import { updateAgentWebhook } from "../../services/agents/agent-webhooks";
import { resolveScope } from "../../services/scope";
import { defineRoute, json, jsonBody } from "../define";
import { authOf, baseUrlOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "updateAgentWebhook",
  method: "patch",
  path: "/agents/{agent_id}/webhook",
  tags: ["agents"],
  summary: "Pause or resume the agent's webhook",
  request: { params: AgentIdParam, query: UserScopeQuery, body: jsonBody(AgentWebhookUpdate) },
  responses: { 200: json(Agent, "The agent; webhook_url only when this call issued a URL") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const scope = await resolveScope(servicesOf(c), authOf(c), c.req.valid("query").user_id);
    return c.json(await updateAgentWebhook(servicesOf(c), scope, c.req.valid("param").agent_id, c.req.valid("json"), baseUrlOf(c)), 200);
  });
}
