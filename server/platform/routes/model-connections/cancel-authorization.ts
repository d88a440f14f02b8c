// DELETE /model-connections/{provider}/authorizations/{state}: abandons a pending authorization.
import { AuthorizationParam } from "@inlay/core/schemas/model-connections";
import type { PlatformApp } from "../../context";
import { cancelAuthorization } from "../../services/models/model-connections";
import { defineRoute, errorResponse, noContent } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "cancelModelAuthorization",
  method: "delete",
  path: "/model-connections/{provider}/authorizations/{state}",
  tags: ["model-connections"],
  summary: "Cancel a model provider authorization",
  request: { params: AuthorizationParam },
  responses: { 204: noContent, 409: errorResponse("The authorization is no longer pending") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const { provider, state } = c.req.valid("param");
    await cancelAuthorization(servicesOf(c), authOf(c), provider, state);
    return c.body(null, 204);
  });
}
