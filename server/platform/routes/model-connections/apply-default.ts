// POST /model-connections/{provider}/apply-default: the account's preferred default connection.
import { ModelConnection, ProviderParam } from "@inlay/core/schemas/model-connections";
import type { PlatformApp } from "../../context";
import { applyDefault } from "../../services/models/model-connections";
import { defineRoute, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "applyDefaultModelConnection",
  method: "post",
  path: "/model-connections/{provider}/apply-default",
  tags: ["model-connections"],
  summary: "Make a connection the preferred default",
  request: { params: ProviderParam },
  responses: { 200: json(ModelConnection, "The connection, now the preferred default") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    return c.json(await applyDefault(servicesOf(c), authOf(c), c.req.valid("param").provider), 200);
  });
}
