// PATCH /teammates/{teammate_id}: the earlier form of PATCH /agents/{agent_id}.
import { Agent, TeammateUpdate } from "@inlay/core/schemas/agents";
import { IntId, UserScopeQuery } from "@inlay/core/schemas/common";
import { z } from "zod";
import type { PlatformApp } from "../../context";
import { patchAgent } from "../../services/agents/agents";
import { resolveScope } from "../../services/scope";
import { defineRoute, json, jsonBody } from "../define";
import { authOf, servicesOf, servicesWithJobsOf } from "../request";

export const route = defineRoute({
  operationId: "updateTeammate",
  method: "patch",
  path: "/teammates/{teammate_id}",
  tags: ["teammates"],
  summary: "Update a teammate",
  request: {
    params: z.object({ teammate_id: IntId }),
    query: UserScopeQuery,
    body: jsonBody(TeammateUpdate, { required: false }),
  },
  responses: { 200: json(Agent, "The teammate") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const scope = await resolveScope(servicesOf(c), authOf(c), c.req.valid("query").user_id);
    return c.json(await patchAgent(servicesWithJobsOf(c), scope, c.req.valid("param").teammate_id, c.req.valid("json")), 200);
  });
}
