// POST /apps/{app}/connect/external-oauth/complete: answered 422 on a self-hosted platform (docs/platform-api.md, "Apps and connections": what is not offered).
import { AppParam, ConnectResult, ExternalOAuthCompleteRequest } from "@inlay/core/schemas/apps";
import { UserScopeQuery } from "@inlay/core/schemas/common";
import type { PlatformApp } from "../../context";
import { refuseUnavailable } from "../../services/apps/apps";
import { defineRoute, jsonBody, unofferedSuccess } from "../define";

export const route = defineRoute({
  operationId: "completeAppExternalOAuth",
  method: "post",
  path: "/apps/{app}/connect/external-oauth/complete",
  tags: ["apps"],
  summary: "Complete a connection started on the hosted apps page (not available: 422)",
  request: { params: AppParam, query: UserScopeQuery, body: jsonBody(ExternalOAuthCompleteRequest) },
  responses: { 200: unofferedSuccess("The connection made: {status, app}", ConnectResult) },
});

export function register(app: PlatformApp) {
  app.openapi(route, (c) => refuseUnavailable(c.var.deps.config, c.req.valid("param").app, "externalOAuth"));
}
