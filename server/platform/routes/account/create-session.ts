// POST /account/sessions: sign in with email and password for a browser session pair (no auth; an extension).
import { SessionLoginRequest, SessionPair } from "@inlay/core/schemas/sessions";
import { ErrorEnvelope } from "@inlay/core/schemas/common";
import type { PlatformApp } from "../../context";
import { loginRateLimit } from "../../middleware/rate-limit";
import { login, sessionSettings } from "../../services/account/sessions";
import { defineRoute, json, jsonBody } from "../define";
import { servicesOf } from "../request";

export const route = defineRoute({
  operationId: "createSession",
  method: "post",
  path: "/account/sessions",
  tags: ["accounts"],
  summary: "Sign in: a session pair for email and password",
  description:
    "Extension (the spec does not show how session tokens are issued). Returns a short-lived access token, " +
    "accepted as a bearer credential wherever an API key is, and a refresh token. With org_id the session " +
    "acts as that team's account (you must be a member). Limited to 10 attempts a minute per IP by default.",
  access: "public",
  before: [loginRateLimit],
  request: { body: jsonBody(SessionLoginRequest) },
  responses: {
    201: json(SessionPair, "The session's tokens (shown once)"),
    401: json(ErrorEnvelope, "Incorrect email or password, or an account without a password"),
  },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const body = c.req.valid("json");
    const pair = await login(servicesOf(c), sessionSettings(c.var.deps.config), {
      email: body.email,
      password: body.password,
      orgId: body.org_id,
    });
    return c.json(pair, 201);
  });
}
