// GET /model-connections/{provider}/authorizations/{state}: where the authorization stands.
import { AuthorizationParam, ModelAuthorization } from "@inlay/core/schemas/model-connections";
import type { PlatformApp } from "../../context";
import { pollAuthorization } from "../../services/models/model-connections";
import { defineRoute, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "getModelAuthorization",
  method: "get",
  path: "/model-connections/{provider}/authorizations/{state}",
  tags: ["model-connections"],
  summary: "Poll a model provider authorization",
  request: { params: AuthorizationParam },
  responses: { 200: json(ModelAuthorization, "The authorization") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const { provider, state } = c.req.valid("param");
    return c.json(await pollAuthorization(servicesOf(c), authOf(c), provider, state), 200);
  });
}
