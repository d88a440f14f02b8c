// GET /permissions: an end-user's allowed tools, or the whole account's without user_id.
import { listEnvelope } from "@inlay/core/schemas/common";
import { ListPermissionsQuery, Permission } from "@inlay/core/schemas/permissions";
import type { PlatformApp } from "../../context";
import { listPermissions } from "../../services/agents/permissions";
import { defineRoute, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "listPermissions",
  method: "get",
  path: "/permissions",
  tags: ["permissions"],
  summary: "List permissions",
  request: { query: ListPermissionsQuery },
  responses: { 200: json(listEnvelope(Permission), "A page of permissions") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const { user_id, limit, starting_after } = c.req.valid("query");
    const page = await listPermissions(servicesOf(c), authOf(c), user_id, { limit, startingAfter: starting_after });
    return c.json(page, 200);
  });
}
