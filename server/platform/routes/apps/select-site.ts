// PUT /apps/{app}/site: answered 422 on a self-hosted platform (docs/platform-api.md, "Apps and connections": what is not offered).
import { AppParam, SelectAccountRequest } from "@inlay/core/schemas/apps";
import { UserScopeQuery } from "@inlay/core/schemas/common";
import type { PlatformApp } from "../../context";
import { refuseUnavailable } from "../../services/apps/apps";
import { defineRoute, jsonBody, unofferedSuccess } from "../define";

export const route = defineRoute({
  operationId: "selectAppSite",
  method: "put",
  path: "/apps/{app}/site",
  tags: ["apps"],
  summary: "Select the search-property site (not available: 422)",
  request: { params: AppParam, query: UserScopeQuery, body: jsonBody(SelectAccountRequest) },
  responses: { 200: unofferedSuccess("The site selected (its shape is not shown in the spec)") },
});

export function register(app: PlatformApp) {
  app.openapi(route, (c) => refuseUnavailable(c.var.deps.config, c.req.valid("param").app, "sites"));
}
