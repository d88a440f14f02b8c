// DELETE /agents/{agent_id}/email-inbox: turn the inbox off; its address is released.
import { Agent, AgentScopeBody } from "@inlay/core/schemas/agents";
import { IntId, UserScopeQuery } from "@inlay/core/schemas/common";
import { z } from "zod";
import type { PlatformApp } from "../../context";
import { setAgentEmailInbox } from "../../services/agents/agents";
import { pickUserId, resolveScope } from "../../services/scope";
import { defineRoute, json, jsonBody } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "disableAgentEmailInbox",
  method: "delete",
  path: "/agents/{agent_id}/email-inbox",
  tags: ["agents"],
  summary: "Disable the agent's email inbox",
  request: { params: z.object({ agent_id: IntId }), query: UserScopeQuery, body: jsonBody(AgentScopeBody, { required: false }) },
  responses: { 200: json(Agent, "The agent with email_inbox and email_address") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const userId = pickUserId(c.req.valid("query").user_id, c.req.valid("json").user_id);
    const scope = await resolveScope(servicesOf(c), authOf(c), userId);
    return c.json(await setAgentEmailInbox(servicesOf(c), scope, c.req.valid("param").agent_id, false), 200);
  });
}
