// GET /webhooks/{webhook_id}: one webhook, secret masked.
import { UserScopeQuery } from "@inlay/core/schemas/common";
import { Webhook, WebhookIdParam } from "@inlay/core/schemas/webhooks";
import type { PlatformApp } from "../../context";
import { getWebhook } from "../../services/webhooks/webhooks";
import { defineRoute, json } from "../define";
import { authOf, servicesWithJobsOf } from "../request";

export const route = defineRoute({
  operationId: "getWebhook",
  method: "get",
  path: "/webhooks/{webhook_id}",
  tags: ["webhooks"],
  summary: "Get a webhook",
  request: { params: WebhookIdParam, query: UserScopeQuery },
  responses: { 200: json(Webhook, "The webhook (secret masked)") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const webhook = await getWebhook(servicesWithJobsOf(c), authOf(c), c.req.valid("query").user_id, c.req.valid("param").webhook_id);
    return c.json(webhook, 200);
  });
}
