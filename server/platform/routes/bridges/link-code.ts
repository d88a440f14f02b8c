// POST /bridges/{bridge_id}/link-code: a short single-use code; the handle that texts it to the bridge
// is linked to it (and may then text its agents). A new code replaces the previous one.
import { BridgeIdParam, BridgeLinkCode } from "@inlay/core/schemas/bridges";
import type { PlatformApp } from "../../context";
import { createLinkCode } from "../../services/messaging/bridges";
import { defineRoute, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "createBridgeLinkCode",
  method: "post",
  path: "/bridges/{bridge_id}/link-code",
  tags: ["bridges"],
  summary: "Make a link code for the bridge (shown once; 10 minutes; single use)",
  request: { params: BridgeIdParam },
  responses: { 201: json(BridgeLinkCode, "The code and when it expires") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => c.json(await createLinkCode(servicesOf(c), authOf(c), c.req.valid("param").bridge_id), 201));
}
