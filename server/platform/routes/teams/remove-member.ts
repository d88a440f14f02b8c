// DELETE /teams/{org_id}/members/{member_id}: remove a member, or leave.
import { MemberParams } from "@inlay/core/schemas/teams";
import { ErrorEnvelope } from "@inlay/core/schemas/common";
import type { PlatformApp } from "../../context";
import { personOf } from "../../services/account/sessions";
import { removeMember } from "../../services/account/teams";
import { defineRoute, json, noContent } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "removeTeamMember",
  method: "delete",
  path: "/teams/{org_id}/members/{member_id}",
  tags: ["teams"],
  summary: "Remove a member (or leave)",
  description:
    "Anyone may remove themselves; owners remove anyone, admins remove admins and members. The account holder " +
    "cannot be removed (409 last_owner). The removed person's sessions acting as the team end at once.",
  request: { params: MemberParams },
  responses: {
    204: noContent,
    403: json(ErrorEnvelope, "The caller's role may not remove this member"),
    409: json(ErrorEnvelope, "The account holder (last_owner)"),
  },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const { org_id, member_id } = c.req.valid("param");
    await removeMember(servicesOf(c), personOf(authOf(c)), org_id, member_id);
    return c.body(null, 204);
  });
}
