// DELETE /webhooks/{webhook_id}: remove a webhook; its deliveries go with it.
import { UserScopeQuery } from "@inlay/core/schemas/common";
import { WebhookIdParam } from "@inlay/core/schemas/webhooks";
import type { PlatformApp } from "../../context";
import { deleteWebhook } from "../../services/webhooks/webhooks";
import { defineRoute, noContent } from "../define";
import { authOf, servicesWithJobsOf } from "../request";

export const route = defineRoute({
  operationId: "deleteWebhook",
  method: "delete",
  path: "/webhooks/{webhook_id}",
  tags: ["webhooks"],
  summary: "Delete a webhook",
  request: { params: WebhookIdParam, query: UserScopeQuery },
  responses: { 204: noContent },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    await deleteWebhook(servicesWithJobsOf(c), authOf(c), c.req.valid("query").user_id, c.req.valid("param").webhook_id);
    return c.body(null, 204);
  });
}
