// POST /account/sessions/revoke: end every session of the signed-in person, on every device (session only).
import { SessionsRevoked } from "@inlay/core/schemas/sessions";
import { ErrorEnvelope } from "@inlay/core/schemas/common";
import type { PlatformApp } from "../../context";
import { revokeAllSessions } from "../../services/account/sessions";
import { defineRoute, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "revokeSessions",
  method: "post",
  path: "/account/sessions/revoke",
  tags: ["accounts"],
  summary: "End every session on every device",
  description:
    "Needs a session token: an API key gets 403 permission_error. Every session of the person who signed in " +
    "ends at once on every instance, this one included. Keys, webhook tokens and runs in progress are untouched.",
  responses: {
    200: json(SessionsRevoked, "How many sessions ended"),
    403: json(ErrorEnvelope, "Called with an API key"),
  },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => c.json(await revokeAllSessions(servicesOf(c), authOf(c)), 200));
}
