// PATCH /apps/connections/{connection_id}: a connection's label and notes.
import { AppConnectionUpdated, ConnectionIdParam, UpdateConnectionRequest } from "@inlay/core/schemas/apps";
import { UserScopeQuery } from "@inlay/core/schemas/common";
import type { PlatformApp } from "../../context";
import { updateAppConnection } from "../../services/apps/apps";
import { defineRoute, json, jsonBody } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "updateAppConnection",
  method: "patch",
  path: "/apps/connections/{connection_id}",
  tags: ["apps"],
  summary: "Label or annotate a connection",
  request: { params: ConnectionIdParam, query: UserScopeQuery, body: jsonBody(UpdateConnectionRequest, { required: false }) },
  responses: { 200: json(AppConnectionUpdated, "The connection") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const updated = await updateAppConnection(servicesOf(c), authOf(c), c.req.valid("query").user_id, c.req.valid("param").connection_id, c.req.valid("json") ?? {});
    return c.json(updated, 200);
  });
}
