// DELETE /model-connections/preferred-default: runs without a model use the platform default again.
import type { PlatformApp } from "../../context";
import { clearPreferredDefault } from "../../services/models/model-connections";
import { defineRoute, noContent } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "clearPreferredModelConnection",
  method: "delete",
  path: "/model-connections/preferred-default",
  tags: ["model-connections"],
  summary: "Clear the preferred default connection",
  request: {},
  responses: { 204: noContent },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    await clearPreferredDefault(servicesOf(c), authOf(c));
    return c.body(null, 204);
  });
}
