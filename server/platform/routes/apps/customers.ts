// GET /apps/{app}/customers: answered 422 on a self-hosted platform (docs/platform-api.md, "Apps and connections": what is not offered).
import { AppParam, RefreshListQuery } from "@inlay/core/schemas/apps";
import type { PlatformApp } from "../../context";
import { refuseUnavailable } from "../../services/apps/apps";
import { defineRoute, unofferedSuccess } from "../define";

export const route = defineRoute({
  operationId: "listAppCustomers",
  method: "get",
  path: "/apps/{app}/customers",
  tags: ["apps"],
  summary: "List ad-platform customer accounts (not available: 422)",
  request: { params: AppParam, query: RefreshListQuery },
  responses: { 200: unofferedSuccess("The ad platform's customer accounts (their shape is not shown in the spec)") },
});

export function register(app: PlatformApp) {
  app.openapi(route, (c) => refuseUnavailable(c.var.deps.config, c.req.valid("param").app, "customers"));
}
