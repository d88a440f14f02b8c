// GET /apps: the app catalogue, with the scope's connection status of each app.
import { App } from "@inlay/core/schemas/apps";
import { listEnvelope, UserScopeQuery } from "@inlay/core/schemas/common";
import type { PlatformApp } from "../../context";
import { listApps } from "../../services/apps/apps";
import { defineRoute, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "listApps",
  method: "get",
  path: "/apps",
  tags: ["apps"],
  summary: "List the apps runs can use, and whether the scope has connected each",
  request: { query: UserScopeQuery },
  responses: { 200: json(listEnvelope(App), "Every app of the catalogue (has_more is always false)") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const data = await listApps(servicesOf(c), authOf(c), c.req.valid("query").user_id);
    return c.json({ data, has_more: false }, 200);
  });
}
