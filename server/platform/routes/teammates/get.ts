// GET /teammates/{teammate_id}: the earlier form of GET /agents/{agent_id}.
import { Agent } from "@inlay/core/schemas/agents";
import { IntId, UserScopeQuery } from "@inlay/core/schemas/common";
import { z } from "zod";
import type { PlatformApp } from "../../context";
import { getAgent } from "../../services/agents/agents";
import { resolveScope } from "../../services/scope";
import { defineRoute, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "getTeammate",
  method: "get",
  path: "/teammates/{teammate_id}",
  tags: ["teammates"],
  summary: "Get a teammate",
  request: { params: z.object({ teammate_id: IntId }), query: UserScopeQuery },
  responses: { 200: json(Agent, "The teammate") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const scope = await resolveScope(servicesOf(c), authOf(c), c.req.valid("query").user_id);
    return c.json(await getAgent(servicesOf(c), scope, c.req.valid("param").teammate_id), 200);
  });
}
