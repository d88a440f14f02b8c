// DELETE /model-connections/{provider}: forgets the connection and every credential it held.
import { ProviderParam } from "@inlay/core/schemas/model-connections";
import type { PlatformApp } from "../../context";
import { disconnect } from "../../services/models/model-connections";
import { defineRoute, noContent } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "disconnectModelConnection",
  method: "delete",
  path: "/model-connections/{provider}",
  tags: ["model-connections"],
  summary: "Disconnect a model provider",
  request: { params: ProviderParam },
  responses: { 204: noContent },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    await disconnect(servicesOf(c), authOf(c), c.req.valid("param").provider);
    return c.body(null, 204);
  });
}
