// POST /teams/{org_id}/invites: email an invite to join the team (owners and admins).
import { CreateInviteRequest, OrgIdParam, TeamInvite } from "@inlay/core/schemas/teams";
import { ErrorEnvelope } from "@inlay/core/schemas/common";
import type { PlatformApp } from "../../context";
import { personOf } from "../../services/account/sessions";
import { createInvite } from "../../services/account/teams";
import { defineRoute, json, jsonBody } from "../define";
import { authOf, baseUrlOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "createTeamInvite",
  method: "post",
  path: "/teams/{org_id}/invites",
  tags: ["teams"],
  summary: "Invite someone to the team by email",
  description:
    "Owners and admins only, to a role no higher than their own (default member). The single-use token goes " +
    "only to the address, by mail; it expires after 7 days. A new invite to the same address replaces a pending one.",
  request: { params: OrgIdParam, body: jsonBody(CreateInviteRequest) },
  responses: {
    201: json(TeamInvite, "The invite (its token is only in the mail)"),
    403: json(ErrorEnvelope, "The caller's role may not invite (to this role)"),
    409: json(ErrorEnvelope, "Already a member (already_member)"),
  },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const { org_id } = c.req.valid("param");
    const body = c.req.valid("json");
    const invite = await createInvite(
      servicesOf(c),
      { mailer: c.var.deps.mailer, baseUrl: baseUrlOf(c) },
      personOf(authOf(c)),
      org_id,
      { email: body.email, role: body.role },
    );
    return c.json(invite, 201);
  });
}
