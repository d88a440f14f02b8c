// GET /mcp-servers: the scope's tool servers, oldest first.
import { listEnvelope } from "@inlay/core/schemas/common";
import { ListToolServersQuery, ToolServer } from "@inlay/core/schemas/tool-servers";
import type { PlatformApp } from "../../context";
import { listToolServers } from "../../services/tool-servers/tool-servers";
import { defineRoute, json } from "../define";
import { authOf, toolServerServicesOf } from "../request";

export const route = defineRoute({
  operationId: "listToolServers",
  method: "get",
  path: "/mcp-servers",
  tags: ["mcp-servers"],
  summary: "List custom tool servers",
  request: { query: ListToolServersQuery },
  responses: { 200: json(listEnvelope(ToolServer), "The scope's servers") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => c.json(await listToolServers(toolServerServicesOf(c), authOf(c), c.req.valid("query").user_id), 200));
}
