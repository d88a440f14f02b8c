// DELETE /agents/{agent_id}/repos/{repo_id}/commands: not built (the platform runs no repository
// commands): 404 as usual, else 422 feature_not_available.
import { AgentRepoParams } from "@/lib/schemas/agent-repos";
import type { PlatformApp } from "../../context";
import { repoCommandsNotAvailable } from "../../services/agent-repos";
import { defineRoute, errorResponse } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "clearAgentRepoCommands",
  method: "delete",
  path: "/agents/{agent_id}/repos/{repo_id}/commands",
  tags: ["agents"],
  summary: "Clear a repository's approved commands (not available: 422 feature_not_available)",
  request: { params: AgentRepoParams },
  responses: { 422: errorResponse("feature_not_available: the platform does not run repositories' commands") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const { agent_id, repo_id } = c.req.valid("param");
    return repoCommandsNotAvailable(servicesOf(c), authOf(c), agent_id, repo_id);
  });
}
