// POST /mcp-servers/{server_id}/approve: check the server (script functions, MCP tool list, REST
// tool_defs) and offer its tools to runs.
import { UserScopeQuery } from "@inlay/core/schemas/common";
import { ToolServer, ToolServerIdParam } from "@inlay/core/schemas/tool-servers";
import type { PlatformApp } from "../../context";
import { approveToolServer } from "../../services/tool-servers/tool-servers";
import { defineRoute, errorResponse, json } from "../define";
import { authOf, toolServerServicesOf } from "../request";

export const route = defineRoute({
  operationId: "approveToolServer",
  method: "post",
  path: "/mcp-servers/{server_id}/approve",
  tags: ["mcp-servers"],
  summary: "Approve a custom tool server",
  request: { params: ToolServerIdParam, query: UserScopeQuery },
  responses: {
    200: json(ToolServer, "The server, approved"),
    409: errorResponse("Disabled (tool_server_disabled), or an MCP server that needs OAuth first (oauth_required)"),
  },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) =>
    c.json(await approveToolServer(toolServerServicesOf(c), authOf(c), c.req.valid("query").user_id, c.req.valid("param").server_id), 200),
  );
}
