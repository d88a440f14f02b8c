// POST /apps/{app}/connect/complete: activate a connection the app authorized (or, for native apps,
// exchange the code given here); runs waiting for the app go on.
import { AppParam, CompleteRequest, ConnectResult } from "@inlay/core/schemas/apps";
import { UserScopeQuery } from "@inlay/core/schemas/common";
import type { PlatformApp } from "../../context";
import { completeConnect } from "../../services/apps/apps";
import { pickUserId } from "../../services/scope";
import { defineRoute, errorResponse, json, jsonBody } from "../define";
import { authOf, connectServicesOf } from "../request";

export const route = defineRoute({
  operationId: "completeAppConnect",
  method: "post",
  path: "/apps/{app}/connect/complete",
  tags: ["apps"],
  summary: "Complete an app connection",
  request: { params: AppParam, query: UserScopeQuery, body: jsonBody(CompleteRequest) },
  responses: {
    200: json(ConnectResult, "The connection is active"),
    409: errorResponse("The app has not authorized this connection (yet), or the flow expired"),
  },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const body = c.req.valid("json");
    const userId = pickUserId(c.req.valid("query").user_id, body.user_id);
    return c.json(await completeConnect(connectServicesOf(c), authOf(c), c.req.valid("param").app, userId, body), 200);
  });
}
