// POST /keys/{key_id}/rotate: a new secret for one named key (same name, same expiry date).
import { ApiKeyWithSecret, KeyIdParam } from "@inlay/core/schemas/accounts";
import { ErrorEnvelope } from "@inlay/core/schemas/common";
import type { PlatformApp } from "../../context";
import { requireAccountOwner } from "../../middleware/authenticate";
import { rotateNamedKey } from "../../services/account/keys";
import { defineRoute, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "rotateKey",
  method: "post",
  path: "/keys/{key_id}/rotate",
  tags: ["keys"],
  before: [requireAccountOwner],
  summary: "Rotate a named key",
  description:
    "Revokes the key and returns its successor under a new id, with the same name and the same " +
    "expires_at. Other keys are untouched.",
  request: { params: KeyIdParam },
  responses: {
    200: json(ApiKeyWithSecret, "The successor key, with its secret (shown once)"),
    409: json(ErrorEnvelope, "The key has expired (error_code key_expired)"),
  },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const key = await rotateNamedKey(servicesOf(c),
      c.var.deps.config.keyPrefix,
      authOf(c).accountId,
      c.req.valid("param").key_id,
    );
    return c.json(key, 200);
  });
}
