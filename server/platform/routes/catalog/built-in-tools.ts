// GET /built-in-tools: the platform's own tools, resolved for one agent with teammate_id.
import { BuiltInToolEntry, BuiltInToolQuery } from "@inlay/core/schemas/catalog";
import { listEnvelope } from "@inlay/core/schemas/common";
import type { PlatformApp } from "../../context";
import { builtInToolsFor } from "../../services/agents/agents";
import { resolveScope } from "../../services/scope";
import { defineRoute, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "listBuiltInTools",
  method: "get",
  path: "/built-in-tools",
  tags: ["catalog"],
  summary: "List built-in tools",
  request: { query: BuiltInToolQuery },
  responses: { 200: json(listEnvelope(BuiltInToolEntry), "Built-in tools") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const query = c.req.valid("query");
    // A catalogue read: strict mode exempts it.
    const scope = await resolveScope(servicesOf(c), authOf(c), query.user_id);
    const data = await builtInToolsFor(servicesOf(c), scope, query.teammate_id);
    return c.json({ data, has_more: false }, 200);
  });
}
