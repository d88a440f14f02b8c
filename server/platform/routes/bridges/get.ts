// GET /bridges/{bridge_id}: one bridge of the account.
import { Bridge, BridgeIdParam } from "@inlay/core/schemas/bridges";
import type { PlatformApp } from "../../context";
import { getBridge } from "../../services/messaging/bridges";
import { defineRoute, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "getBridge",
  method: "get",
  path: "/bridges/{bridge_id}",
  tags: ["bridges"],
  summary: "Get an iMessage bridge (account-scoped)",
  request: { params: BridgeIdParam },
  responses: { 200: json(Bridge, "The bridge") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => c.json(await getBridge(servicesOf(c), authOf(c), c.req.valid("param").bridge_id), 200));
}
