// POST /webhooks/{webhook_id}/deliveries/{delivery_id}/retry (extension): one more attempt of a
// finished delivery, now.
import { UserScopeQuery } from "@inlay/core/schemas/common";
import { WebhookDelivery, WebhookDeliveryParams } from "@inlay/core/schemas/webhooks";
import type { PlatformApp } from "../../context";
import { retryDelivery } from "../../services/webhooks/webhooks";
import { defineRoute, errorResponse, json } from "../define";
import { authOf, servicesWithJobsOf } from "../request";

export const route = defineRoute({
  operationId: "retryWebhookDelivery",
  method: "post",
  path: "/webhooks/{webhook_id}/deliveries/{delivery_id}/retry",
  tags: ["webhooks"],
  summary: "Attempt a delivery again",
  request: { params: WebhookDeliveryParams, query: UserScopeQuery },
  responses: {
    202: json(WebhookDelivery, "The delivery, pending again"),
    409: errorResponse("The delivery is still pending, or the webhook is off"),
  },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const { webhook_id, delivery_id } = c.req.valid("param");
    return c.json(await retryDelivery(servicesWithJobsOf(c), authOf(c), c.req.valid("query").user_id, webhook_id, delivery_id), 202);
  });
}
