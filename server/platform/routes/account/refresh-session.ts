// POST /account/sessions/refresh: trade a refresh token for a new session pair (no auth; an extension).
import { SessionPair, SessionRefreshRequest } from "@inlay/core/schemas/sessions";
import { ErrorEnvelope } from "@inlay/core/schemas/common";
import type { PlatformApp } from "../../context";
import { refresh, sessionSettings } from "../../services/account/sessions";
import { defineRoute, json, jsonBody } from "../define";
import { servicesOf } from "../request";

export const route = defineRoute({
  operationId: "refreshSession",
  method: "post",
  path: "/account/sessions/refresh",
  tags: ["accounts"],
  summary: "A new session pair for a refresh token",
  description:
    "Extension. The refresh token works once: the answer carries a new access and refresh token, and the " +
    "previous access token stops working. The session's lifetime (refresh_token_expires_at) does not grow.",
  access: "public",
  request: { body: jsonBody(SessionRefreshRequest) },
  responses: {
    200: json(SessionPair, "The session's new tokens (shown once)"),
    401: json(ErrorEnvelope, "Unknown, used, revoked or expired refresh token"),
  },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const body = c.req.valid("json");
    return c.json(await refresh(servicesOf(c), sessionSettings(c.var.deps.config), body.refresh_token), 200);
  });
}
