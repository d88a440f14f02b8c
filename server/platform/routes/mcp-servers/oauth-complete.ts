// POST /mcp-servers/{server_id}/oauth/complete: exchange the code a caller's redirect_uri received
// and keep the scope's tokens (sealed).
import { UserScopeQuery } from "@inlay/core/schemas/common";
import { ToolServerIdParam, ToolServerOAuthCompleted, ToolServerOAuthCompleteRequest } from "@inlay/core/schemas/tool-servers";
import type { PlatformApp } from "../../context";
import { pickUserId } from "../../services/scope";
import { completeToolServerOAuth } from "../../services/tool-servers/tool-servers";
import { defineRoute, json, jsonBody } from "../define";
import { authOf, toolServerServicesOf } from "../request";

export const route = defineRoute({
  operationId: "completeToolServerOAuth",
  method: "post",
  path: "/mcp-servers/{server_id}/oauth/complete",
  tags: ["mcp-servers"],
  summary: "Complete a tool server's OAuth authorization",
  request: { params: ToolServerIdParam, query: UserScopeQuery, body: jsonBody(ToolServerOAuthCompleteRequest) },
  responses: { 200: json(ToolServerOAuthCompleted, "The scope's authorization is stored") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const body = c.req.valid("json");
    const userId = pickUserId(c.req.valid("query").user_id, body.user_id);
    return c.json(await completeToolServerOAuth(toolServerServicesOf(c), authOf(c), userId, c.req.valid("param").server_id, body), 200);
  });
}
