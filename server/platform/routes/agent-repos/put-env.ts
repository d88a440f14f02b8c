// PUT /agents/{agent_id}/repos/{repo_id}/env: replace the binding's env (values 8-8192 characters,
// sealed, never returned, redacted from the agent's runs).
import { AgentRepoEnv, AgentRepoEnvPut, AgentRepoParams } from "@inlay/core/schemas/agent-repos";
import type { PlatformApp } from "../../context";
import { putRepoEnv } from "../../services/agents/agent-repos";
import { defineRoute, json, jsonBody } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "putAgentRepoEnv",
  method: "put",
  path: "/agents/{agent_id}/repos/{repo_id}/env",
  tags: ["agents"],
  summary: "Replace the bound repository's env (account-scoped)",
  request: { params: AgentRepoParams, body: jsonBody(AgentRepoEnvPut) },
  responses: { 200: json(AgentRepoEnv, "The names now set") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const { agent_id, repo_id } = c.req.valid("param");
    return c.json(await putRepoEnv(servicesOf(c), authOf(c), agent_id, repo_id, c.req.valid("json")), 200);
  });
}
