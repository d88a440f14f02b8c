// POST /bridges/{bridge_id}/inbound (Inlay extension, for the bridge server, not API clients): one
// iMessage received. No API key: the X-Bridge-Secret header carries the bridge's inbound secret. The
// answer is the same whatever became of the message (a run, a link, a refusal), so it tells nothing of
// the agents. Unauthenticated, so the IP rate limit (middleware/rate-limit.ts) applies.
import { BridgeIdParam, BridgeInbound, BridgeInboundHeaders, BridgeInboundReceived } from "@inlay/core/schemas/bridges";
import type { PlatformApp } from "../../context";
import { authenticateBridge, receiveBridgeMessage } from "../../entry-points/bridge-inbound";
import { defineRoute, errorResponse, json, jsonBody } from "../define";
import { runServicesOf } from "../request";

export const route = defineRoute({
  operationId: "receiveBridgeMessage",
  method: "post",
  path: "/bridges/{bridge_id}/inbound",
  tags: ["bridges"],
  summary: "Deliver an inbound iMessage (Inlay extension; for the bridge server, authenticated by X-Bridge-Secret)",
  access: "public",
  request: { params: BridgeIdParam, headers: BridgeInboundHeaders, body: jsonBody(BridgeInbound) },
  responses: {
    202: json(BridgeInboundReceived, "Received (a run started or continued, a handle linked, or the message refused and logged)"),
    401: errorResponse("Missing or wrong X-Bridge-Secret, or no such bridge"),
  },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const services = { ...runServicesOf(c), jobs: c.var.runtime.jobs };
    const bridge = await authenticateBridge(services.prisma, c.req.valid("param").bridge_id, c.req.valid("header")["x-bridge-secret"]);
    await receiveBridgeMessage(services, bridge, c.req.valid("json"));
    return c.json({ received: true as const }, 202);
  });
}
