// PUT /apps/{app}/customer: answered 422 on a self-hosted platform (docs/platform-api.md, "Apps and connections": what is not offered).
import { AppParam, SelectAccountRequest } from "@inlay/core/schemas/apps";
import { UserScopeQuery } from "@inlay/core/schemas/common";
import type { PlatformApp } from "../../context";
import { refuseUnavailable } from "../../services/apps/apps";
import { defineRoute, jsonBody, unofferedSuccess } from "../define";

export const route = defineRoute({
  operationId: "selectAppCustomer",
  method: "put",
  path: "/apps/{app}/customer",
  tags: ["apps"],
  summary: "Select the ad-platform customer account (not available: 422)",
  request: { params: AppParam, query: UserScopeQuery, body: jsonBody(SelectAccountRequest) },
  responses: { 200: unofferedSuccess("The customer account selected (its shape is not shown in the spec)") },
});

export function register(app: PlatformApp) {
  app.openapi(route, (c) => refuseUnavailable(c.var.deps.config, c.req.valid("param").app, "customers"));
}
