// DELETE /keys/{key_id}: revoke one named key; it stops authenticating on its next request.
import { KeyIdParam } from "@inlay/core/schemas/accounts";
import type { PlatformApp } from "../../context";
import { requireAccountOwner } from "../../middleware/authenticate";
import { deleteNamedKey } from "../../services/account/keys";
import { defineRoute, noContent } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "revokeKey",
  method: "delete",
  path: "/keys/{key_id}",
  tags: ["keys"],
  before: [requireAccountOwner],
  summary: "Revoke a named key",
  request: { params: KeyIdParam },
  responses: { 204: noContent },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    await deleteNamedKey(servicesOf(c), authOf(c).accountId, c.req.valid("param").key_id);
    return c.body(null, 204);
  });
}
