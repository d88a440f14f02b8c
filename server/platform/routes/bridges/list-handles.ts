// GET /bridges/{bridge_id}/handles: the handles linked to the bridge with link codes, oldest first.
import { BridgeHandle, BridgeIdParam, BridgeListQuery } from "@inlay/core/schemas/bridges";
import { listEnvelope } from "@inlay/core/schemas/common";
import type { PlatformApp } from "../../context";
import { listBridgeHandles } from "../../services/messaging/bridges";
import { defineRoute, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "listBridgeHandles",
  method: "get",
  path: "/bridges/{bridge_id}/handles",
  tags: ["bridges"],
  summary: "List the bridge's linked handles",
  request: { params: BridgeIdParam, query: BridgeListQuery },
  responses: { 200: json(listEnvelope(BridgeHandle), "A page of handles") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) =>
    c.json(await listBridgeHandles(servicesOf(c), authOf(c), c.req.valid("param").bridge_id, c.req.valid("query")), 200),
  );
}
