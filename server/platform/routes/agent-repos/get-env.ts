// GET /agents/{agent_id}/repos/{repo_id}/env: the names of the binding's env variables (values are
// write-only).
import { AgentRepoEnv, AgentRepoParams } from "@inlay/core/schemas/agent-repos";
import type { PlatformApp } from "../../context";
import { getRepoEnv } from "../../services/agents/agent-repos";
import { defineRoute, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "getAgentRepoEnv",
  method: "get",
  path: "/agents/{agent_id}/repos/{repo_id}/env",
  tags: ["agents"],
  summary: "The bound repository's env variable names (account-scoped)",
  request: { params: AgentRepoParams },
  responses: { 200: json(AgentRepoEnv, "The names set; values are never returned") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const { agent_id, repo_id } = c.req.valid("param");
    return c.json(await getRepoEnv(servicesOf(c), authOf(c), agent_id, repo_id), 200);
  });
}
