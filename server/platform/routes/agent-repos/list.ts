// GET /agents/{agent_id}/repos: the agent's bound repositories, oldest first (account-scoped).
import { AgentRepo } from "@inlay/core/schemas/agent-repos";
import { AgentIdParam } from "@inlay/core/schemas/agents";
import { PageQuery, listEnvelope } from "@inlay/core/schemas/common";
import type { PlatformApp } from "../../context";
import { listRepos } from "../../services/agents/agent-repos";
import { defineRoute, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "listAgentRepos",
  method: "get",
  path: "/agents/{agent_id}/repos",
  tags: ["agents"],
  summary: "List the agent's bound repositories (account-scoped)",
  request: { params: AgentIdParam, query: PageQuery },
  responses: { 200: json(listEnvelope(AgentRepo), "A page of bindings") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) =>
    c.json(await listRepos(servicesOf(c), authOf(c), c.req.valid("param").agent_id, c.req.valid("query")), 200),
  );
}
