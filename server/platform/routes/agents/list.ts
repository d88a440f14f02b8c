// GET /agents: list agents of the scope, by COALESCE(display_order, id).
import { Agent, AgentListQuery, AgentSummary } from "@inlay/core/schemas/agents";
import { listEnvelope } from "@inlay/core/schemas/common";
import { z } from "zod";
import type { PlatformApp } from "../../context";
import { listAgents } from "../../services/agents/agents";
import { resolveScope } from "../../services/scope";
import { defineRoute, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "listAgents",
  method: "get",
  path: "/agents",
  tags: ["agents"],
  summary: "List agents",
  request: { query: AgentListQuery },
  responses: {
    200: json(z.union([listEnvelope(Agent), listEnvelope(AgentSummary)]), "A page of agents (summaries with fields=summary)"),
  },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const query = c.req.valid("query");
    const scope = await resolveScope(servicesOf(c), authOf(c), query.user_id, { strict: true });
    return c.json(await listAgents(servicesOf(c), scope, query), 200);
  });
}
