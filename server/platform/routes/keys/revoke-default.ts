// DELETE /keys: revoke the default key; it stops authenticating on its next request.
import type { PlatformApp } from "../../context";
import { requireAccountOwner } from "../../middleware/authenticate";
import { deleteDefaultKey } from "../../services/account/keys";
import { defineRoute, noContent } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "revokeDefaultKey",
  method: "delete",
  path: "/keys",
  tags: ["keys"],
  before: [requireAccountOwner],
  summary: "Revoke the default key",
  responses: { 204: noContent },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    await deleteDefaultKey(servicesOf(c), authOf(c).accountId);
    return c.body(null, 204);
  });
}
