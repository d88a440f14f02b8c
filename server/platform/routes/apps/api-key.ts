// POST /apps/{app}/connect/api-key: connect an API-key app; the key is sealed and never returned.
import { ApiKeyRequest, AppParam, ConnectResult } from "@inlay/core/schemas/apps";
import { UserScopeQuery } from "@inlay/core/schemas/common";
import type { PlatformApp } from "../../context";
import { connectApiKey } from "../../services/apps/apps";
import { pickUserId } from "../../services/scope";
import { defineRoute, json, jsonBody } from "../define";
import { authOf, connectServicesOf } from "../request";

export const route = defineRoute({
  operationId: "connectAppWithApiKey",
  method: "post",
  path: "/apps/{app}/connect/api-key",
  tags: ["apps"],
  summary: "Connect an app with an API key",
  request: { params: AppParam, query: UserScopeQuery, body: jsonBody(ApiKeyRequest) },
  responses: { 200: json(ConnectResult, "The connection is active") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const body = c.req.valid("json");
    const userId = pickUserId(c.req.valid("query").user_id, body.user_id);
    return c.json(await connectApiKey(connectServicesOf(c), authOf(c), c.req.valid("param").app, userId, body), 200);
  });
}
