// PUT /model-connections/{provider}: our extension, an API key (and base URL) for openai, anthropic or openai-compatible.
import { ApiKeyConnectionRequest, ModelConnection, ProviderParam } from "@inlay/core/schemas/model-connections";
import type { PlatformApp } from "../../context";
import { connectWithApiKey } from "../../services/models/model-connections";
import { defineRoute, errorResponse, json, jsonBody } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "connectModelProviderWithApiKey",
  method: "put",
  path: "/model-connections/{provider}",
  tags: ["model-connections"],
  summary: "Connect a model provider with an API key",
  request: { params: ProviderParam, body: jsonBody(ApiKeyConnectionRequest) },
  responses: { 200: json(ModelConnection, "The connection (no secret)"), 409: errorResponse("MODEL_ACCOUNT_LIMIT: the connection holds its maximum of accounts") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    return c.json(await connectWithApiKey(servicesOf(c), authOf(c), c.req.valid("param").provider, c.req.valid("json")), 200);
  });
}
