// POST /mcp-servers: register a custom tool server (REST API, remote MCP server or script); its tools
// reach runs once approved.
import { UserScopeQuery } from "@inlay/core/schemas/common";
import { CreateToolServerRequest, ToolServer } from "@inlay/core/schemas/tool-servers";
import type { PlatformApp } from "../../context";
import { pickUserId } from "../../services/scope";
import { createToolServer } from "../../services/tool-servers/tool-servers";
import { defineRoute, json, jsonBody } from "../define";
import { authOf, toolServerServicesOf } from "../request";

export const route = defineRoute({
  operationId: "createToolServer",
  method: "post",
  path: "/mcp-servers",
  tags: ["mcp-servers"],
  summary: "Register a custom tool server",
  request: { query: UserScopeQuery, body: jsonBody(CreateToolServerRequest) },
  responses: { 201: json(ToolServer, "The server, status pending (secret and script_source are never returned)") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const body = c.req.valid("json");
    const userId = pickUserId(c.req.valid("query").user_id, body.user_id);
    return c.json(await createToolServer(toolServerServicesOf(c), authOf(c), userId, body), 201);
  });
}
