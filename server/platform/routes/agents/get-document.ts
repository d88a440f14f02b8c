// GET /agents/{agent_id}/documents/{name}: one document, with its content.
import { z } from "zod";
import { AgentDocumentWithContent, AgentIdParam } from "@inlay/core/schemas/agents";
import { UserScopeQuery } from "@inlay/core/schemas/common";
import type { PlatformApp } from "../../context";
import { getDocument } from "../../services/agents/agents";
import { resolveScope } from "../../services/scope";
import { defineRoute, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "getAgentDocument",
  method: "get",
  path: "/agents/{agent_id}/documents/{name}",
  tags: ["agents"],
  summary: "Get one of an agent's documents",
  request: { params: AgentIdParam.extend({ name: z.string().min(1).max(255) }), query: UserScopeQuery },
  responses: { 200: json(AgentDocumentWithContent, "The document") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const { agent_id, name } = c.req.valid("param");
    const scope = await resolveScope(servicesOf(c), authOf(c), c.req.valid("query").user_id);
    return c.json(await getDocument(servicesOf(c), scope, agent_id, name), 200);
  });
}
