// POST /apps/{app}/provision: answered 422 on a self-hosted platform (docs/platform-api.md, "Apps and connections": what is not offered).
import { AppParam, AppProvisioned, ProvisionRequest } from "@inlay/core/schemas/apps";
import { UserScopeQuery } from "@inlay/core/schemas/common";
import type { PlatformApp } from "../../context";
import { refuseUnavailable } from "../../services/apps/apps";
import { defineRoute, jsonBody, unofferedSuccess } from "../define";

export const route = defineRoute({
  operationId: "provisionApp",
  method: "post",
  path: "/apps/{app}/provision",
  tags: ["apps"],
  summary: "Provision a platform-allocated resource (not available: 422)",
  request: { params: AppParam, query: UserScopeQuery, body: jsonBody(ProvisionRequest) },
  responses: { 200: unofferedSuccess("The resource allocated: {status, app, phone_number}", AppProvisioned) },
});

export function register(app: PlatformApp) {
  app.openapi(route, (c) => refuseUnavailable(c.var.deps.config, c.req.valid("param").app, "provision"));
}
