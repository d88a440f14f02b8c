// POST /agents/{agent_id}/repos/{repo_id}/approve-commands: record the digest of the repository's
// commands a person approved (account-scoped, like every repository route).
import { AgentRepo, AgentRepoParams, ApproveCommands } from "@inlay/core/schemas/agent-repos";
import type { PlatformApp } from "../../context";
import { approveRepoCommands } from "../../services/agents/agent-repos";
import { defineRoute, json, jsonBody } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "approveAgentRepoCommands",
  method: "post",
  path: "/agents/{agent_id}/repos/{repo_id}/approve-commands",
  tags: ["agents"],
  summary: "Approve a repository's commands by their digest (account-scoped)",
  request: { params: AgentRepoParams, body: jsonBody(ApproveCommands) },
  responses: { 200: json(AgentRepo, "The binding, with the approved digest") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const { agent_id, repo_id } = c.req.valid("param");
    return c.json(await approveRepoCommands(servicesOf(c), authOf(c), agent_id, repo_id, c.req.valid("json")), 200);
  });
}
