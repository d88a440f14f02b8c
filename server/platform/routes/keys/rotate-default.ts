// POST /keys/rotate: replace the default key (or mint one if there is none); the old one stops at once.
import { ApiKeyWithSecret } from "@inlay/core/schemas/accounts";
import type { PlatformApp } from "../../context";
import { requireAccountOwner } from "../../middleware/authenticate";
import { rotateDefaultKey } from "../../services/account/keys";
import { defineRoute, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "rotateDefaultKey",
  method: "post",
  path: "/keys/rotate",
  tags: ["keys"],
  before: [requireAccountOwner],
  summary: "Rotate the default key",
  description: "Revokes the current default key, if any, and returns its replacement with the secret (shown once).",
  responses: { 200: json(ApiKeyWithSecret, "The new default key, with its secret (shown once)") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) =>
    c.json(await rotateDefaultKey(servicesOf(c), c.var.deps.config.keyPrefix, authOf(c).accountId), 200),
  );
}
