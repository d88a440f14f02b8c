// PATCH /bridges/{bridge_id}: change name, server_url, password, status (active or paused) or owner_handle.
import { Bridge, BridgeIdParam, BridgeUpdate } from "@inlay/core/schemas/bridges";
import type { PlatformApp } from "../../context";
import { updateBridge } from "../../services/messaging/bridges";
import { defineRoute, json, jsonBody } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "updateBridge",
  method: "patch",
  path: "/bridges/{bridge_id}",
  tags: ["bridges"],
  summary: "Update an iMessage bridge (omitted fields stay)",
  request: { params: BridgeIdParam, body: jsonBody(BridgeUpdate, { required: false }) },
  responses: { 200: json(Bridge, "The bridge") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) =>
    c.json(await updateBridge(servicesOf(c), authOf(c), c.req.valid("param").bridge_id, c.req.valid("json") ?? {}), 200),
  );
}
