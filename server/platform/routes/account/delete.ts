// DELETE /account: delete the account and all its data; its keys stop working with it.
import type { PlatformApp } from "../../context";
import { requireAccountOwner } from "../../middleware/authenticate";
import { deleteAccount } from "../../services/account/accounts";
import { defineRoute, noContent } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "deleteAccount",
  method: "delete",
  path: "/account",
  tags: ["accounts"],
  before: [requireAccountOwner],
  summary: "Delete the account and all its data",
  responses: { 204: noContent },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    await deleteAccount(servicesOf(c), authOf(c).accountId);
    return c.body(null, 204);
  });
}
