// GET /bridges: the account's bridges, oldest first (account-scoped).
import { Bridge, BridgeListQuery } from "@inlay/core/schemas/bridges";
import { listEnvelope } from "@inlay/core/schemas/common";
import type { PlatformApp } from "../../context";
import { listBridges } from "../../services/messaging/bridges";
import { defineRoute, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "listBridges",
  method: "get",
  path: "/bridges",
  tags: ["bridges"],
  summary: "List the account's iMessage bridges (account-scoped)",
  request: { query: BridgeListQuery },
  responses: { 200: json(listEnvelope(Bridge), "A page of bridges") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => c.json(await listBridges(servicesOf(c), authOf(c), c.req.valid("query")), 200));
}
