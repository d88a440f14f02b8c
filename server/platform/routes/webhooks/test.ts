// POST /webhooks/{webhook_id}/test (extension): a webhook.test event sent to this webhook now, signed
// like any other, so its owner can check the endpoint without waiting for a run.
import { UserScopeQuery } from "@inlay/core/schemas/common";
import { WebhookDelivery, WebhookIdParam } from "@inlay/core/schemas/webhooks";
import type { PlatformApp } from "../../context";
import { sendTestEvent } from "../../services/webhooks/webhooks";
import { defineRoute, errorResponse, json } from "../define";
import { authOf, servicesWithJobsOf } from "../request";

export const route = defineRoute({
  operationId: "sendWebhookTestEvent",
  method: "post",
  path: "/webhooks/{webhook_id}/test",
  tags: ["webhooks"],
  summary: "Send a test event",
  description: "Queues one webhook.test delivery to this webhook (one attempt, no retries); read its outcome in its deliveries.",
  request: { params: WebhookIdParam, query: UserScopeQuery },
  responses: { 202: json(WebhookDelivery, "The test delivery, pending"), 409: errorResponse("The webhook is off") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    return c.json(await sendTestEvent(servicesWithJobsOf(c), authOf(c), c.req.valid("query").user_id, c.req.valid("param").webhook_id), 202);
  });
}
