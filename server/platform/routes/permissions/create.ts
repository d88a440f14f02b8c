// POST /permissions: allow a tool for an end-user (idempotent).
import { UserScopeQuery } from "@inlay/core/schemas/common";
import { CreatePermissionRequest, Permission } from "@inlay/core/schemas/permissions";
import type { PlatformApp } from "../../context";
import { allowTool } from "../../services/agents/permissions";
import { pickUserId } from "../../services/scope";
import { defineRoute, json, jsonBody } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "createPermission",
  method: "post",
  path: "/permissions",
  tags: ["permissions"],
  summary: "Allow a tool for an end-user",
  request: { query: UserScopeQuery, body: jsonBody(CreatePermissionRequest) },
  responses: {
    201: json(Permission, "The permission; the existing record, unchanged, when the end-user already allows the tool"),
  },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const body = c.req.valid("json");
    const userId = pickUserId(c.req.valid("query").user_id, body.user_id);
    // 201 for a repeat too: the spec promises 201 and the same record, so clients need not branch.
    return c.json(await allowTool(servicesOf(c), authOf(c), userId, body.tool), 201);
  });
}
