// GET /agents/{agent_id}/documents: documents the agent has written, newest first.
import { AgentDocument, AgentIdParam } from "@inlay/core/schemas/agents";
import { PageQuery, UserScopeQuery, listEnvelope } from "@inlay/core/schemas/common";
import type { PlatformApp } from "../../context";
import { listDocuments } from "../../services/agents/agents";
import { resolveScope } from "../../services/scope";
import { defineRoute, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "listAgentDocuments",
  method: "get",
  path: "/agents/{agent_id}/documents",
  tags: ["agents"],
  summary: "List an agent's documents",
  request: { params: AgentIdParam, query: PageQuery.extend(UserScopeQuery.shape) },
  responses: { 200: json(listEnvelope(AgentDocument), "A page of documents") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const query = c.req.valid("query");
    const scope = await resolveScope(servicesOf(c), authOf(c), query.user_id);
    return c.json(await listDocuments(servicesOf(c), scope, c.req.valid("param").agent_id, query), 200);
  });
}
