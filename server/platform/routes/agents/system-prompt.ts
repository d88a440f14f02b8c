// GET /agents/{agent_id}/system-prompt: the exact prompt the agent's model receives.
import { AgentIdParam, SystemPrompt } from "@/lib/schemas/agents";
import { UserScopeQuery } from "@/lib/schemas/common";
import type { PlatformApp } from "../../context";
import { agentSystemPrompt } from "../../services/agents";
import { resolveScope } from "../../services/scope";
import { defineRoute, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "getAgentSystemPrompt",
  method: "get",
  path: "/agents/{agent_id}/system-prompt",
  tags: ["agents"],
  summary: "The agent's system prompt",
  request: { params: AgentIdParam, query: UserScopeQuery },
  responses: { 200: json(SystemPrompt, "The prompt") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const scope = await resolveScope(servicesOf(c), authOf(c), c.req.valid("query").user_id);
    return c.json(await agentSystemPrompt(servicesOf(c), scope, c.req.valid("param").agent_id), 200);
  });
}
