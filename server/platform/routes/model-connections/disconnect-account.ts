// DELETE /model-connections/{provider}/accounts/{account_id}: forgets one provider-side account (the connection goes with its last).
import { ProviderAccountParam } from "@inlay/core/schemas/model-connections";
import type { PlatformApp } from "../../context";
import { disconnectAccount } from "../../services/models/model-connections";
import { defineRoute, noContent } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "disconnectModelProviderAccount",
  method: "delete",
  path: "/model-connections/{provider}/accounts/{account_id}",
  tags: ["model-connections"],
  summary: "Disconnect one provider-side account",
  request: { params: ProviderAccountParam },
  responses: { 204: noContent },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const { provider, account_id } = c.req.valid("param");
    await disconnectAccount(servicesOf(c), authOf(c), provider, account_id);
    return c.body(null, 204);
  });
}
