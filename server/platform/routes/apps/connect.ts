// POST /apps/{app}/connect: start an OAuth connection; the browser goes to authorization_url.
import { AppParam, ConnectRequest, ConnectStarted } from "@inlay/core/schemas/apps";
import { UserScopeQuery } from "@inlay/core/schemas/common";
import type { PlatformApp } from "../../context";
import { startConnect } from "../../services/apps/apps";
import { pickUserId } from "../../services/scope";
import { defineRoute, json, jsonBody } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "connectApp",
  method: "post",
  path: "/apps/{app}/connect",
  tags: ["apps"],
  summary: "Start connecting an OAuth app",
  request: { params: AppParam, query: UserScopeQuery, body: jsonBody(ConnectRequest) },
  responses: { 200: json(ConnectStarted, "Where to send the browser, and the pending connection") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const body = c.req.valid("json");
    const userId = pickUserId(c.req.valid("query").user_id, body.user_id);
    return c.json(await startConnect(servicesOf(c), authOf(c), c.req.valid("param").app, userId, body), 200);
  });
}
