// DELETE /bridges/{bridge_id}/handles/{handle_id}: unlink a handle; it may no longer text the bridge's
// agents unless an agent's allowed_imessage_senders names it.
import { BridgeHandleParams } from "@inlay/core/schemas/bridges";
import type { PlatformApp } from "../../context";
import { unlinkBridgeHandle } from "../../services/messaging/bridges";
import { defineRoute, noContent } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "deleteBridgeHandle",
  method: "delete",
  path: "/bridges/{bridge_id}/handles/{handle_id}",
  tags: ["bridges"],
  summary: "Unlink a handle from the bridge",
  request: { params: BridgeHandleParams },
  responses: { 204: noContent },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const { bridge_id, handle_id } = c.req.valid("param");
    await unlinkBridgeHandle(servicesOf(c), authOf(c), bridge_id, handle_id);
    return c.body(null, 204);
  });
}
