// POST /mcp-servers/{server_id}/oauth/start: the authorization URL for the scope's own OAuth grant.
import { UserScopeQuery } from "@inlay/core/schemas/common";
import { ToolServerIdParam, ToolServerOAuthStarted, ToolServerOAuthStartRequest } from "@inlay/core/schemas/tool-servers";
import type { PlatformApp } from "../../context";
import { pickUserId } from "../../services/scope";
import { startToolServerOAuth } from "../../services/tool-servers/tool-servers";
import { defineRoute, errorResponse, json, jsonBody } from "../define";
import { authOf, toolServerServicesOf } from "../request";

export const route = defineRoute({
  operationId: "startToolServerOAuth",
  method: "post",
  path: "/mcp-servers/{server_id}/oauth/start",
  tags: ["mcp-servers"],
  summary: "Start a tool server's OAuth authorization",
  request: { params: ToolServerIdParam, query: UserScopeQuery, body: jsonBody(ToolServerOAuthStartRequest, { required: false }) },
  responses: {
    200: json(ToolServerOAuthStarted, "Where to send the browser"),
    409: errorResponse("The server does not use OAuth (oauth_not_used), or is disabled"),
  },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const body = c.req.valid("json") ?? {};
    const userId = pickUserId(c.req.valid("query").user_id, body.user_id);
    return c.json(await startToolServerOAuth(toolServerServicesOf(c), authOf(c), userId, c.req.valid("param").server_id, body), 200);
  });
}
