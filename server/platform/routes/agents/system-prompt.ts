// GET /agents/{agent_id}/system-prompt: the exact prompt the agent's model receives (?skill=: with that skill forced).
import { AgentIdParam, SystemPrompt, SystemPromptQuery } from "@inlay/core/schemas/agents";
import type { PlatformApp } from "../../context";
import { agentSystemPrompt } from "../../services/agents/agents";
import { resolveScope } from "../../services/scope";
import { defineRoute, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "getAgentSystemPrompt",
  method: "get",
  path: "/agents/{agent_id}/system-prompt",
  tags: ["agents"],
  summary: "The agent's system prompt",
  request: { params: AgentIdParam, query: SystemPromptQuery },
  responses: { 200: json(SystemPrompt, "The prompt") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const { user_id, skill } = c.req.valid("query");
    const scope = await resolveScope(servicesOf(c), authOf(c), user_id);
    return c.json(await agentSystemPrompt(servicesOf(c), scope, c.req.valid("param").agent_id, skill), 200);
  });
}
