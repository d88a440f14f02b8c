// DELETE /agents/{agent_id}/repos/{repo_id}/env/{key}: remove one env variable (404 when not set).
import { AgentRepoEnvKeyParams } from "@inlay/core/schemas/agent-repos";
import type { PlatformApp } from "../../context";
import { deleteRepoEnvKey } from "../../services/agents/agent-repos";
import { defineRoute, noContent } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "deleteAgentRepoEnvKey",
  method: "delete",
  path: "/agents/{agent_id}/repos/{repo_id}/env/{key}",
  tags: ["agents"],
  summary: "Remove one of the bound repository's env variables (account-scoped)",
  request: { params: AgentRepoEnvKeyParams },
  responses: { 204: noContent },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const { agent_id, repo_id, key } = c.req.valid("param");
    await deleteRepoEnvKey(servicesOf(c), authOf(c), agent_id, repo_id, key);
    return c.body(null, 204);
  });
}
