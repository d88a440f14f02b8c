// GET /apps/connections: the scope's connections of every app, newest first (no token, ever).
import { AppConnection } from "@inlay/core/schemas/apps";
import { listEnvelope, UserScopeQuery } from "@inlay/core/schemas/common";
import type { PlatformApp } from "../../context";
import { listAppConnections } from "../../services/apps/apps";
import { defineRoute, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "listAppConnections",
  method: "get",
  path: "/apps/connections",
  tags: ["apps"],
  summary: "List the scope's app connections",
  request: { query: UserScopeQuery },
  responses: { 200: json(listEnvelope(AppConnection), "Connections, newest first; connects not completed are left out") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const data = await listAppConnections(servicesOf(c), authOf(c), c.req.valid("query").user_id);
    return c.json({ data, has_more: false }, 200);
  });
}
