// GET /webhooks/{webhook_id}/deliveries: the webhook's deliveries, newest first, each with its attempts.
import { listEnvelope } from "@inlay/core/schemas/common";
import { ListWebhookDeliveriesQuery, WebhookDelivery, WebhookIdParam } from "@inlay/core/schemas/webhooks";
import type { PlatformApp } from "../../context";
import { listDeliveries } from "../../services/webhooks/webhooks";
import { defineRoute, json } from "../define";
import { authOf, servicesWithJobsOf } from "../request";

export const route = defineRoute({
  operationId: "listWebhookDeliveries",
  method: "get",
  path: "/webhooks/{webhook_id}/deliveries",
  tags: ["webhooks"],
  summary: "List a webhook's deliveries and their attempts",
  request: { params: WebhookIdParam, query: ListWebhookDeliveriesQuery },
  responses: { 200: json(listEnvelope(WebhookDelivery), "A page of deliveries, newest first") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const { user_id, limit, starting_after, status } = c.req.valid("query");
    const page = await listDeliveries(servicesWithJobsOf(c), authOf(c), user_id, c.req.valid("param").webhook_id, {
      limit,
      startingAfter: starting_after,
      status,
    });
    return c.json(page, 200);
  });
}
