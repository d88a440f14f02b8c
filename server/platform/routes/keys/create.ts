// POST /keys: create a named key; its secret is in this response and nowhere else, ever.
import { ApiKeyWithSecret, CreateKeyRequest } from "@inlay/core/schemas/accounts";
import type { PlatformApp } from "../../context";
import { requireAccountOwner } from "../../middleware/authenticate";
import { createNamedKey } from "../../services/account/keys";
import { defineRoute, json, jsonBody } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "createKey",
  method: "post",
  path: "/keys",
  tags: ["keys"],
  before: [requireAccountOwner],
  summary: "Create a named key",
  request: { body: jsonBody(CreateKeyRequest) },
  responses: { 201: json(ApiKeyWithSecret, "The new key, with its secret (shown once)") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const body = c.req.valid("json");
    const key = await createNamedKey(servicesOf(c), c.var.deps.config.keyPrefix, authOf(c).accountId, {
      name: body.name,
      expiresInDays: body.expires_in_days,
    });
    return c.json(key, 201);
  });
}
