// DELETE /apps/{app}/connections: disconnect every connection of the app in the scope.
import { AppParam } from "@inlay/core/schemas/apps";
import { UserScopeQuery } from "@inlay/core/schemas/common";
import type { PlatformApp } from "../../context";
import { deleteAppConnections } from "../../services/apps/apps";
import { defineRoute, noContent } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "deleteConnectionsOfApp",
  method: "delete",
  path: "/apps/{app}/connections",
  tags: ["apps"],
  summary: "Disconnect an app",
  request: { params: AppParam, query: UserScopeQuery },
  responses: { 204: noContent },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    await deleteAppConnections(servicesOf(c), authOf(c), c.req.valid("query").user_id, c.req.valid("param").app);
    return c.body(null, 204);
  });
}
