// GET /keys/all: the account's named keys that are not revoked, secrets omitted.
import { ApiKeyList } from "@inlay/core/schemas/accounts";
import { PageQuery } from "@inlay/core/schemas/common";
import type { PlatformApp } from "../../context";
import { requireAccountOwner } from "../../middleware/authenticate";
import { listKeys } from "../../services/account/keys";
import { defineRoute, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "listKeys",
  method: "get",
  path: "/keys/all",
  tags: ["keys"],
  before: [requireAccountOwner],
  summary: "List named keys",
  description:
    "Named keys that are not revoked, oldest first. Expired keys stay listed (expires_at in the past) " +
    "until revoked, so they can be found and cleaned up. The default key is not listed (GET /keys).",
  request: { query: PageQuery },
  responses: { 200: json(ApiKeyList, "A page of named keys (never their secrets)") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const query = c.req.valid("query");
    const page = await listKeys(servicesOf(c), authOf(c).accountId, {
      limit: query.limit,
      startingAfter: query.starting_after,
    });
    return c.json(page, 200);
  });
}
