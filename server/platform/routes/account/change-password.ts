// POST /account/password: change the password; every session ends and a fresh pair answers.
import { PasswordChangeRequest, SessionPair } from "@inlay/core/schemas/sessions";
import { ErrorEnvelope } from "@inlay/core/schemas/common";
import type { PlatformApp } from "../../context";
import { loginRateLimit } from "../../middleware/rate-limit";
import { changePassword, sessionSettings } from "../../services/account/sessions";
import { defineRoute, json, jsonBody } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "changePassword",
  method: "post",
  path: "/account/password",
  tags: ["accounts"],
  summary: "Change the password",
  description:
    "Changes the signed-in person's password (with a key: the key's account holder's). Every session of that " +
    "person ends, on every device, and the answer is a fresh session pair acting as the caller's account. API " +
    "keys and webhook tokens keep working. There is no 2FA, so never an MFA challenge.",
  before: [loginRateLimit],
  request: { body: jsonBody(PasswordChangeRequest) },
  responses: {
    200: json(SessionPair, "A fresh session (shown once)"),
    403: json(ErrorEnvelope, "current_password is incorrect (error_code incorrect_password)"),
  },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const body = c.req.valid("json");
    const pair = await changePassword(servicesOf(c), sessionSettings(c.var.deps.config), authOf(c), {
      currentPassword: body.current_password,
      newPassword: body.new_password,
    });
    return c.json(pair, 200);
  });
}
