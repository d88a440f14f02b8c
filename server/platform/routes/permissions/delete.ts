// DELETE /permissions/{permission_id}: stop auto-approving a tool for an end-user.
import { UserScopeQuery } from "@inlay/core/schemas/common";
import { DeletePermissionRequest, PermissionIdParam } from "@inlay/core/schemas/permissions";
import type { PlatformApp } from "../../context";
import { revokePermission } from "../../services/agents/permissions";
import { pickUserId } from "../../services/scope";
import { defineRoute, jsonBody, noContent } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "deletePermission",
  method: "delete",
  path: "/permissions/{permission_id}",
  tags: ["permissions"],
  summary: "Delete a permission",
  // user_id usually comes in the query string; a body is accepted for clients that send one.
  request: {
    params: PermissionIdParam,
    query: UserScopeQuery,
    body: jsonBody(DeletePermissionRequest, { required: false }),
  },
  responses: { 204: noContent },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const userId = pickUserId(c.req.valid("query").user_id, c.req.valid("json").user_id);
    await revokePermission(servicesOf(c), authOf(c), userId, c.req.valid("param").permission_id);
    return c.body(null, 204);
  });
}
