// POST /bridges/provision-alt: a line of the second vendor; the body is checked (number E.164 required,
// api_key, user_id), then 422 feature_not_available: this self-hosted platform has no such provider.
import { BridgeProvisionAlt } from "@inlay/core/schemas/bridges";
import type { PlatformApp } from "../../context";
import { provisionAltBridge } from "../../services/messaging/bridges";
import { defineRoute, errorResponse, jsonBody, unofferedSuccess } from "../define";

export const route = defineRoute({
  operationId: "provisionAltBridge",
  method: "post",
  path: "/bridges/provision-alt",
  tags: ["bridges"],
  summary: "Provision a line of the second vendor (not available: 422 feature_not_available)",
  request: { body: jsonBody(BridgeProvisionAlt) },
  responses: {
    200: unofferedSuccess("The line provisioned (its shape is not shown in the spec)"),
    422: errorResponse("A field is invalid (named), or else feature_not_available (no hosted line provider)"),
  },
});

export function register(app: PlatformApp) {
  app.openapi(route, (c) => provisionAltBridge(c.req.valid("json")));
}
