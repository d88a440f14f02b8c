// DELETE /bridges/{bridge_id}: remove the bridge, its linked handles and its message log; its agents
// keep their iMessage settings with bridge_id null.
import { BridgeIdParam } from "@inlay/core/schemas/bridges";
import type { PlatformApp } from "../../context";
import { deleteBridge } from "../../services/messaging/bridges";
import { defineRoute, noContent } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "deleteBridge",
  method: "delete",
  path: "/bridges/{bridge_id}",
  tags: ["bridges"],
  summary: "Delete an iMessage bridge",
  request: { params: BridgeIdParam },
  responses: { 204: noContent },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    await deleteBridge(servicesOf(c), authOf(c), c.req.valid("param").bridge_id);
    return c.body(null, 204);
  });
}
