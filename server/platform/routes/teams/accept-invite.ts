// POST /teams/invites/accept: join the team an invite is for (the invited address's own account).
import { AcceptInviteRequest, Team } from "@inlay/core/schemas/teams";
import { ErrorEnvelope } from "@inlay/core/schemas/common";
import type { PlatformApp } from "../../context";
import { personOf } from "../../services/account/sessions";
import { acceptInvite } from "../../services/account/teams";
import { defineRoute, json, jsonBody } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "acceptTeamInvite",
  method: "post",
  path: "/teams/invites/accept",
  tags: ["teams"],
  summary: "Accept an invite",
  description:
    "The caller (a session's person, or a key's account holder) must have the invited email address. " +
    "The invite is used up; the answer is the team as GET /teams shows it.",
  request: { body: jsonBody(AcceptInviteRequest) },
  responses: {
    200: json(Team, "The team joined"),
    403: json(ErrorEnvelope, "The invite is for another address (invite_email_mismatch)"),
    409: json(ErrorEnvelope, "Already a member"),
    410: json(ErrorEnvelope, "Used, revoked or expired"),
  },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const team = await acceptInvite(servicesOf(c), personOf(authOf(c)), c.req.valid("json").token);
    return c.json(team, 200);
  });
}
