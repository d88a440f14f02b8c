// GET /keys: the default key, without its secret.
import { ApiKeyInfo } from "@inlay/core/schemas/accounts";
import type { PlatformApp } from "../../context";
import { requireAccountOwner } from "../../middleware/authenticate";
import { getDefaultKey } from "../../services/account/keys";
import { defineRoute, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "getDefaultKey",
  method: "get",
  path: "/keys",
  tags: ["keys"],
  before: [requireAccountOwner],
  summary: "Info on the default key",
  responses: { 200: json(ApiKeyInfo, "The default key (never its secret)") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => c.json(await getDefaultKey(servicesOf(c), authOf(c).accountId), 200));
}
