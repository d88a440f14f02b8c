// GET /apps/{app}/sites: answered 422 on a self-hosted platform (docs/platform-api.md, "Apps and connections": what is not offered).
import { AppParam, RefreshListQuery } from "@inlay/core/schemas/apps";
import type { PlatformApp } from "../../context";
import { refuseUnavailable } from "../../services/apps/apps";
import { defineRoute, unofferedSuccess } from "../define";

export const route = defineRoute({
  operationId: "listAppSites",
  method: "get",
  path: "/apps/{app}/sites",
  tags: ["apps"],
  summary: "List search-property sites (not available: 422)",
  request: { params: AppParam, query: RefreshListQuery },
  responses: { 200: unofferedSuccess("The search-property sites (their shape is not shown in the spec)") },
});

export function register(app: PlatformApp) {
  app.openapi(route, (c) => refuseUnavailable(c.var.deps.config, c.req.valid("param").app, "sites"));
}
