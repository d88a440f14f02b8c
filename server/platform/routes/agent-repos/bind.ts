// POST /agents/{agent_id}/repos: bind a repository to the agent (account-scoped; needs the code-host
// app connected at the account level). 201 for a new binding, 200 for a re-bind.
import { AgentRepo, AgentRepoCreate } from "@inlay/core/schemas/agent-repos";
import { AgentIdParam } from "@inlay/core/schemas/agents";
import type { PlatformApp } from "../../context";
import { bindRepo } from "../../services/agents/agent-repos";
import { defineRoute, json, jsonBody } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "bindAgentRepo",
  method: "post",
  path: "/agents/{agent_id}/repos",
  tags: ["agents"],
  summary: "Bind a repository to the agent (account-scoped)",
  request: { params: AgentIdParam, body: jsonBody(AgentRepoCreate) },
  responses: {
    201: json(AgentRepo, "The new binding (mode trusted unless given)"),
    200: json(AgentRepo, "The repository was bound already: its binding, its mode changed only when given"),
  },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const { repo, created } = await bindRepo(servicesOf(c), authOf(c), c.req.valid("param").agent_id, c.req.valid("json"));
    return created ? c.json(repo, 201) : c.json(repo, 200);
  });
}
