// GET /webhooks: the scope's webhooks, oldest first, secrets masked.
import { listEnvelope } from "@inlay/core/schemas/common";
import { ListWebhooksQuery, Webhook } from "@inlay/core/schemas/webhooks";
import type { PlatformApp } from "../../context";
import { listWebhooks } from "../../services/webhooks/webhooks";
import { defineRoute, json } from "../define";
import { authOf, servicesWithJobsOf } from "../request";

export const route = defineRoute({
  operationId: "listWebhooks",
  method: "get",
  path: "/webhooks",
  tags: ["webhooks"],
  summary: "List webhooks",
  request: { query: ListWebhooksQuery },
  responses: { 200: json(listEnvelope(Webhook), "A page of webhooks (secrets masked)") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const { user_id, limit, starting_after } = c.req.valid("query");
    return c.json(await listWebhooks(servicesWithJobsOf(c), authOf(c), user_id, { limit, startingAfter: starting_after }), 200);
  });
}
