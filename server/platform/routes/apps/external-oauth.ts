// POST /apps/{app}/connect/external-oauth: answered 422 on a self-hosted platform (docs/platform-api.md, "Apps and connections": what is not offered).
import { AppParam, ExternalOAuthRequest } from "@inlay/core/schemas/apps";
import { UserScopeQuery } from "@inlay/core/schemas/common";
import type { PlatformApp } from "../../context";
import { refuseUnavailable } from "../../services/apps/apps";
import { defineRoute, jsonBody, unofferedSuccess } from "../define";

export const route = defineRoute({
  operationId: "connectAppExternalOAuth",
  method: "post",
  path: "/apps/{app}/connect/external-oauth",
  tags: ["apps"],
  summary: "Start a connection through the hosted apps page (not available: 422)",
  request: { params: AppParam, query: UserScopeQuery, body: jsonBody(ExternalOAuthRequest) },
  responses: { 200: unofferedSuccess("The hosted apps page to open (its shape is not shown in the spec)") },
});

export function register(app: PlatformApp) {
  app.openapi(route, (c) => refuseUnavailable(c.var.deps.config, c.req.valid("param").app, "externalOAuth"));
}
