// POST /model-connections/provA/paste: a token pair copied from provA.
import { ModelConnection, PasteConnectionRequest } from "@inlay/core/schemas/model-connections";
import type { PlatformApp } from "../../context";
import { pasteConnection } from "../../services/models/model-connections";
import { defineRoute, errorResponse, json, jsonBody } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "pasteModelConnection",
  method: "post",
  path: "/model-connections/provA/paste",
  tags: ["model-connections"],
  summary: "Paste a provA connection",
  request: { body: jsonBody(PasteConnectionRequest) },
  responses: { 201: json(ModelConnection, "The connection (no secret)"), 409: errorResponse("MODEL_ACCOUNT_LIMIT: the connection holds its maximum of accounts") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    return c.json(await pasteConnection(servicesOf(c), authOf(c), c.req.valid("json")), 201);
  });
}
