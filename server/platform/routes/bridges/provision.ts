// POST /bridges/provision: a hosted iMessage line; this self-hosted platform has no provider, so 422
// feature_not_available (docs/platform-api.md, "Bridges").
import type { PlatformApp } from "../../context";
import { provisionBridge } from "../../services/messaging/bridges";
import { defineRoute, errorResponse, unofferedSuccess } from "../define";

export const route = defineRoute({
  operationId: "provisionBridge",
  method: "post",
  path: "/bridges/provision",
  tags: ["bridges"],
  summary: "Provision a hosted iMessage line (not available: 422 feature_not_available)",
  responses: {
    200: unofferedSuccess("The hosted line provisioned (its shape is not shown in the spec)"),
    422: errorResponse("Always: feature_not_available (no hosted line provider; register your own bridge with POST /bridges)"),
  },
});

export function register(app: PlatformApp) {
  app.openapi(route, () => provisionBridge());
}
