// POST /model-connections/{provider}/authorizations/{state}: redeems the code the provider showed.
import { AuthorizationParam, CompleteAuthorizationRequest, ModelAuthorization } from "@inlay/core/schemas/model-connections";
import type { PlatformApp } from "../../context";
import { completeAuthorization } from "../../services/models/model-connections";
import { defineRoute, errorResponse, json, jsonBody } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "completeModelAuthorization",
  method: "post",
  path: "/model-connections/{provider}/authorizations/{state}",
  tags: ["model-connections"],
  summary: "Complete a model provider authorization",
  request: { params: AuthorizationParam, body: jsonBody(CompleteAuthorizationRequest) },
  responses: { 200: json(ModelAuthorization, "Completed: the connection has a new account"), 409: errorResponse("The authorization is no longer pending (AUTHORIZATION_COMPLETED, _CANCELLED, _EXPIRED, _FAILED)") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const { provider, state } = c.req.valid("param");
    return c.json(await completeAuthorization(servicesOf(c), authOf(c), provider, state, c.req.valid("json")), 200);
  });
}
