// POST /bridges/{bridge_id}/test: ping the bridge server (through the outbound guard) and say what
// happened; a server that is down or refuses is a result, not an error.
import { BridgeIdParam, BridgeTestResult } from "@inlay/core/schemas/bridges";
import type { PlatformApp } from "../../context";
import { testBridge } from "../../services/messaging/bridges";
import { defineRoute, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "testBridge",
  method: "post",
  path: "/bridges/{bridge_id}/test",
  tags: ["bridges"],
  summary: "Test the connection to the bridge server",
  request: { params: BridgeIdParam },
  responses: { 200: json(BridgeTestResult, "ok, the server's HTTP status (null when unreachable), latency_ms and why not ok") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => c.json(await testBridge(servicesOf(c), authOf(c), c.req.valid("param").bridge_id), 200));
}
