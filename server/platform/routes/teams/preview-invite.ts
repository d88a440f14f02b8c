// GET /teams/invites/{invite} (the spec's <token>): what an invite offers (any authenticated caller holding its token).
import { InvitePreview, InviteTokenParam } from "@inlay/core/schemas/teams";
import { ErrorEnvelope } from "@inlay/core/schemas/common";
import type { PlatformApp } from "../../context";
import { previewInvite } from "../../services/account/teams";
import { defineRoute, json } from "../define";
import { servicesOf } from "../request";

export const route = defineRoute({
  operationId: "previewTeamInvite",
  method: "get",
  path: "/teams/invites/{invite}",
  tags: ["teams"],
  summary: "Preview an invite",
  description: "404 for an unknown token; 410 gone for a used, revoked or expired one (error_code invite_accepted, invite_revoked, invite_expired).",
  request: { params: InviteTokenParam },
  responses: {
    200: json(InvitePreview, "The invite"),
    410: json(ErrorEnvelope, "Used, revoked or expired"),
  },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => c.json(await previewInvite(servicesOf(c), c.req.valid("param").invite), 200));
}
