// GET /teams: the caller's teams, with their members and (for owners and admins) pending invites.
import { TeamList } from "@inlay/core/schemas/teams";
import type { PlatformApp } from "../../context";
import { personOf } from "../../services/account/sessions";
import { listTeams } from "../../services/account/teams";
import { defineRoute, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "listTeams",
  method: "get",
  path: "/teams",
  tags: ["teams"],
  summary: "The caller's teams",
  description:
    "Every team (org) the caller belongs to: its own account's first, always with role owner. The caller is " +
    "the person behind the credential: a session's signed-in person, or a key's account holder.",
  responses: { 200: json(TeamList, "The teams") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => c.json(await listTeams(servicesOf(c), personOf(authOf(c))), 200));
}
