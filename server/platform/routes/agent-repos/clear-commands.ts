// DELETE /agents/{agent_id}/repos/{repo_id}/commands: forget the repository's approved commands.
import { AgentRepoParams } from "@inlay/core/schemas/agent-repos";
import type { PlatformApp } from "../../context";
import { clearRepoCommands } from "../../services/agents/agent-repos";
import { defineRoute, noContent } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "clearAgentRepoCommands",
  method: "delete",
  path: "/agents/{agent_id}/repos/{repo_id}/commands",
  tags: ["agents"],
  summary: "Clear a repository's approved commands (account-scoped)",
  request: { params: AgentRepoParams },
  responses: { 204: noContent },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const { agent_id, repo_id } = c.req.valid("param");
    await clearRepoCommands(servicesOf(c), authOf(c), agent_id, repo_id);
    return c.body(null, 204);
  });
}
