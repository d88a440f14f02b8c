// PATCH /model-connections/{provider}/default-model: the model runs use when this connection is the preferred default.
import { DefaultModelRequest, ModelConnection, ProviderParam } from "@inlay/core/schemas/model-connections";
import type { PlatformApp } from "../../context";
import { setConnectionDefaultModel } from "../../services/models/model-connections";
import { defineRoute, json, jsonBody } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "setModelConnectionDefaultModel",
  method: "patch",
  path: "/model-connections/{provider}/default-model",
  tags: ["model-connections"],
  summary: "Set a connection's default model",
  request: { params: ProviderParam, body: jsonBody(DefaultModelRequest) },
  responses: { 200: json(ModelConnection, "The connection") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    return c.json(await setConnectionDefaultModel(servicesOf(c), authOf(c), c.req.valid("param").provider, c.req.valid("json").model), 200);
  });
}
