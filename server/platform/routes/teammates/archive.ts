// DELETE /teammates/{teammate_id}: archive, as DELETE /agents/{agent_id}.
import { IntId, UserScopeQuery } from "@inlay/core/schemas/common";
import { z } from "zod";
import type { PlatformApp } from "../../context";
import { archiveAgent } from "../../services/agents/agents";
import { resolveScope } from "../../services/scope";
import { defineRoute, noContent } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "archiveTeammate",
  method: "delete",
  path: "/teammates/{teammate_id}",
  tags: ["teammates"],
  summary: "Archive a teammate",
  request: { params: z.object({ teammate_id: IntId }), query: UserScopeQuery },
  responses: { 204: noContent },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const scope = await resolveScope(servicesOf(c), authOf(c), c.req.valid("query").user_id);
    await archiveAgent(servicesOf(c), scope, c.req.valid("param").teammate_id);
    return c.body(null, 204);
  });
}
