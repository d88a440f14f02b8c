// POST /bridges/{bridge_id}/rotate-secret: a new inbound secret for the bridge server (shown only here);
// the previous one stops working at once.
import { BridgeIdParam, BridgeSecret } from "@inlay/core/schemas/bridges";
import type { PlatformApp } from "../../context";
import { rotateBridgeSecret } from "../../services/messaging/bridges";
import { defineRoute, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "rotateBridgeSecret",
  method: "post",
  path: "/bridges/{bridge_id}/rotate-secret",
  tags: ["bridges"],
  summary: "Rotate the bridge's inbound secret (returned only here)",
  request: { params: BridgeIdParam },
  responses: { 200: json(BridgeSecret, "The bridge with its new inbound_secret") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => c.json(await rotateBridgeSecret(servicesOf(c), authOf(c), c.req.valid("param").bridge_id), 200));
}
