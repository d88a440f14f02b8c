// DELETE /teams/invites/{invite} (the spec's <invite_id>): revoke a pending invite (owners and admins of its team).
import { InviteIdParam } from "@inlay/core/schemas/teams";
import { ErrorEnvelope } from "@inlay/core/schemas/common";
import type { PlatformApp } from "../../context";
import { personOf } from "../../services/account/sessions";
import { revokeInvite } from "../../services/account/teams";
import { defineRoute, json, noContent } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "revokeTeamInvite",
  method: "delete",
  path: "/teams/invites/{invite}",
  tags: ["teams"],
  summary: "Revoke an invite",
  request: { params: InviteIdParam },
  responses: {
    204: noContent,
    403: json(ErrorEnvelope, "The caller is a plain member of the team"),
  },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    await revokeInvite(servicesOf(c), personOf(authOf(c)), c.req.valid("param").invite);
    return c.body(null, 204);
  });
}
