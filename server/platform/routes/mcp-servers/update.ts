// PATCH /mcp-servers/{server_id}: change a tool server; a change to what approval checked makes it pending again.
import { UserScopeQuery } from "@inlay/core/schemas/common";
import { ToolServer, ToolServerIdParam, UpdateToolServerRequest } from "@inlay/core/schemas/tool-servers";
import type { PlatformApp } from "../../context";
import { updateToolServer } from "../../services/tool-servers/tool-servers";
import { defineRoute, json, jsonBody } from "../define";
import { authOf, toolServerServicesOf } from "../request";

export const route = defineRoute({
  operationId: "updateToolServer",
  method: "patch",
  path: "/mcp-servers/{server_id}",
  tags: ["mcp-servers"],
  summary: "Update a custom tool server",
  request: { params: ToolServerIdParam, query: UserScopeQuery, body: jsonBody(UpdateToolServerRequest, { required: false }) },
  responses: { 200: json(ToolServer, "The server") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const server = await updateToolServer(toolServerServicesOf(c), authOf(c), c.req.valid("query").user_id, c.req.valid("param").server_id, c.req.valid("json") ?? {});
    return c.json(server, 200);
  });
}
