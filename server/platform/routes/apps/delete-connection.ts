// DELETE /apps/connections/{connection_id}: disconnect; the token is revoked at the app when it can be.
import { ConnectionIdParam } from "@inlay/core/schemas/apps";
import { UserScopeQuery } from "@inlay/core/schemas/common";
import type { PlatformApp } from "../../context";
import { deleteAppConnection } from "../../services/apps/apps";
import { defineRoute, noContent } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "deleteAppConnection",
  method: "delete",
  path: "/apps/connections/{connection_id}",
  tags: ["apps"],
  summary: "Delete a connection",
  request: { params: ConnectionIdParam, query: UserScopeQuery },
  responses: { 204: noContent },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    await deleteAppConnection(servicesOf(c), authOf(c), c.req.valid("query").user_id, c.req.valid("param").connection_id);
    return c.body(null, 204);
  });
}
