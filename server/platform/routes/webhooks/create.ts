// POST /webhooks: register an endpoint for run events; the only response with the whole secret.
import { UserScopeQuery } from "@inlay/core/schemas/common";
import { CreateWebhookRequest, Webhook } from "@inlay/core/schemas/webhooks";
import type { PlatformApp } from "../../context";
import { pickUserId } from "../../services/scope";
import { createWebhook } from "../../services/webhooks/webhooks";
import { defineRoute, json, jsonBody } from "../define";
import { authOf, servicesWithJobsOf } from "../request";

export const route = defineRoute({
  operationId: "createWebhook",
  method: "post",
  path: "/webhooks",
  tags: ["webhooks"],
  summary: "Register a webhook",
  request: { query: UserScopeQuery, body: jsonBody(CreateWebhookRequest) },
  responses: { 201: json(Webhook, "The webhook, with its signing secret in full (returned only here)") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const body = c.req.valid("json");
    const userId = pickUserId(c.req.valid("query").user_id, body.user_id);
    return c.json(await createWebhook(servicesWithJobsOf(c), authOf(c), userId, body), 201);
  });
}
