// GET /model-connections: every provider with the account's connection status on it.
import { ModelConnectionList } from "@inlay/core/schemas/model-connections";
import type { PlatformApp } from "../../context";
import { listModelConnections } from "../../services/models/model-connections";
import { defineRoute, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "listModelConnections",
  method: "get",
  path: "/model-connections",
  tags: ["model-connections"],
  summary: "List model connections",
  request: {},
  responses: { 200: json(ModelConnectionList, "Every provider and its status") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    return c.json(await listModelConnections(servicesOf(c), authOf(c)), 200);
  });
}
