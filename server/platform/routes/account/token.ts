// POST /token: exchange the account's email and password for a fresh default key (no auth).
import { TokenRequest, TokenResponse } from "@inlay/core/schemas/accounts";
import { ErrorEnvelope } from "@inlay/core/schemas/common";
import type { PlatformApp } from "../../context";
import { issueTokenForPassword } from "../../services/account/keys";
import { defineRoute, json, jsonBody } from "../define";
import { servicesOf } from "../request";

export const route = defineRoute({
  operationId: "createToken",
  method: "post",
  path: "/token",
  tags: ["accounts"],
  summary: "Mint or rotate the default key with email and password",
  description:
    "Mints the account's default key, or rotates it when there is one: the previous default key stops " +
    "working at once. Named keys are untouched. Accounts created without a password cannot use this.",
  access: "public",
  request: { body: jsonBody(TokenRequest) },
  responses: {
    200: json(TokenResponse, "The new default key (shown once)"),
    401: json(ErrorEnvelope, "Incorrect email or password, or an account without a password"),
  },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const body = c.req.valid("json");
    const result = await issueTokenForPassword(servicesOf(c), c.var.deps.config.keyPrefix, {
      email: body.email,
      password: body.password,
    });
    return c.json(result, 200);
  });
}
