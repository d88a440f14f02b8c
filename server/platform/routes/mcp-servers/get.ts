// GET /mcp-servers/{server_id}: one tool server of the scope.
import { UserScopeQuery } from "@inlay/core/schemas/common";
import { ToolServer, ToolServerIdParam } from "@inlay/core/schemas/tool-servers";
import type { PlatformApp } from "../../context";
import { getToolServer } from "../../services/tool-servers/tool-servers";
import { defineRoute, json } from "../define";
import { authOf, toolServerServicesOf } from "../request";

export const route = defineRoute({
  operationId: "getToolServer",
  method: "get",
  path: "/mcp-servers/{server_id}",
  tags: ["mcp-servers"],
  summary: "Get a custom tool server",
  request: { params: ToolServerIdParam, query: UserScopeQuery },
  responses: { 200: json(ToolServer, "The server") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) =>
    c.json(await getToolServer(toolServerServicesOf(c), authOf(c), c.req.valid("query").user_id, c.req.valid("param").server_id), 200),
  );
}
