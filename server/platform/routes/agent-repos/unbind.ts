// DELETE /agents/{agent_id}/repos/{repo_id}: unbind the repository (its env goes with it).
import { AgentRepoParams } from "@inlay/core/schemas/agent-repos";
import type { PlatformApp } from "../../context";
import { unbindRepo } from "../../services/agents/agent-repos";
import { defineRoute, noContent } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "unbindAgentRepo",
  method: "delete",
  path: "/agents/{agent_id}/repos/{repo_id}",
  tags: ["agents"],
  summary: "Unbind a repository from the agent (account-scoped)",
  request: { params: AgentRepoParams },
  responses: { 204: noContent },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const { agent_id, repo_id } = c.req.valid("param");
    await unbindRepo(servicesOf(c), authOf(c), agent_id, repo_id);
    return c.body(null, 204);
  });
}
