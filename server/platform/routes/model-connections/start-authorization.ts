// POST /model-connections/{provider}/authorizations: starts an authorization (code with PKCE).
import { ModelAuthorization, ProviderParam } from "@inlay/core/schemas/model-connections";
import type { PlatformApp } from "../../context";
import { startAuthorization } from "../../services/models/model-connections";
import { defineRoute, errorResponse, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "startModelAuthorization",
  method: "post",
  path: "/model-connections/{provider}/authorizations",
  tags: ["model-connections"],
  summary: "Start a model provider authorization",
  request: { params: ProviderParam },
  responses: { 201: json(ModelAuthorization, "Pending: send the person to authorization_url"), 409: errorResponse("AUTHORIZATION_LIMIT: too many pending authorizations") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    return c.json(await startAuthorization(servicesOf(c), authOf(c), c.req.valid("param").provider), 201);
  });
}
