// DELETE /mcp-servers/{server_id}: remove a tool server; its tools leave runs, its OAuth grants go with it.
import { UserScopeQuery } from "@inlay/core/schemas/common";
import { ToolServerIdParam } from "@inlay/core/schemas/tool-servers";
import type { PlatformApp } from "../../context";
import { deleteToolServer } from "../../services/tool-servers/tool-servers";
import { defineRoute, noContent } from "../define";
import { authOf, toolServerServicesOf } from "../request";

export const route = defineRoute({
  operationId: "deleteToolServer",
  method: "delete",
  path: "/mcp-servers/{server_id}",
  tags: ["mcp-servers"],
  summary: "Delete a custom tool server",
  request: { params: ToolServerIdParam, query: UserScopeQuery },
  responses: { 204: noContent },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    await deleteToolServer(toolServerServicesOf(c), authOf(c), c.req.valid("query").user_id, c.req.valid("param").server_id);
    return c.body(null, 204);
  });
}
