// PATCH /webhooks/{webhook_id}: change the URL or events, pause or resume, or rotate the secret.
import { UserScopeQuery } from "@inlay/core/schemas/common";
import { UpdateWebhookRequest, Webhook, WebhookIdParam } from "@inlay/core/schemas/webhooks";
import type { PlatformApp } from "../../context";
import { updateWebhook } from "../../services/webhooks/webhooks";
import { defineRoute, json, jsonBody } from "../define";
import { authOf, servicesWithJobsOf } from "../request";

export const route = defineRoute({
  operationId: "updateWebhook",
  method: "patch",
  path: "/webhooks/{webhook_id}",
  tags: ["webhooks"],
  summary: "Update a webhook",
  request: { params: WebhookIdParam, query: UserScopeQuery, body: jsonBody(UpdateWebhookRequest, { required: false }) },
  responses: { 200: json(Webhook, "The webhook; with rotate_secret, its new secret in full") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const { user_id } = c.req.valid("query");
    const webhook = await updateWebhook(servicesWithJobsOf(c), authOf(c), user_id, c.req.valid("param").webhook_id, c.req.valid("json"));
    return c.json(webhook, 200);
  });
}
