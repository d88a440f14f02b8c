// GET /apps/{app}/connections: the scope's connections of one app, newest first.
import { AppConnection, AppParam } from "@inlay/core/schemas/apps";
import { listEnvelope, UserScopeQuery } from "@inlay/core/schemas/common";
import type { PlatformApp } from "../../context";
import { listAppConnections } from "../../services/apps/apps";
import { defineRoute, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "listConnectionsOfApp",
  method: "get",
  path: "/apps/{app}/connections",
  tags: ["apps"],
  summary: "List the scope's connections of one app",
  request: { params: AppParam, query: UserScopeQuery },
  responses: { 200: json(listEnvelope(AppConnection), "Connections, newest first") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const data = await listAppConnections(servicesOf(c), authOf(c), c.req.valid("query").user_id, c.req.valid("param").app);
    return c.json({ data, has_more: false }, 200);
  });
}
