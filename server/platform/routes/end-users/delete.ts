// DELETE /users/{user_id}: delete an end-user profile and everything scoped to it.
import { EndUserParam } from "@inlay/core/schemas/end-users";
import type { PlatformApp } from "../../context";
import { deleteEndUser } from "../../services/account/end-users";
import { defineRoute, noContent } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "deleteEndUser",
  method: "delete",
  path: "/users/{user_id}",
  tags: ["end-users"],
  summary: "Delete an end-user profile with its agents, memories, permissions and other scoped data",
  request: { params: EndUserParam },
  responses: { 204: noContent },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    await deleteEndUser(servicesOf(c), authOf(c).accountId, c.req.valid("param").user_id);
    return c.body(null, 204);
  });
}
