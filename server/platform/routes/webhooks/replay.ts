// POST /webhooks/{webhook_id}/replay (extension): the events of the webhook's scope and kinds since a
// time, delivered again (after an outage, or to a new endpoint).
import { UserScopeQuery } from "@inlay/core/schemas/common";
import { ReplayWebhookRequest, WebhookIdParam, WebhookReplay } from "@inlay/core/schemas/webhooks";
import type { PlatformApp } from "../../context";
import { replayWebhook } from "../../services/webhooks/webhooks";
import { defineRoute, errorResponse, json, jsonBody } from "../define";
import { authOf, servicesWithJobsOf } from "../request";

export const route = defineRoute({
  operationId: "replayWebhook",
  method: "post",
  path: "/webhooks/{webhook_id}/replay",
  tags: ["webhooks"],
  summary: "Deliver past events again",
  request: { params: WebhookIdParam, query: UserScopeQuery, body: jsonBody(ReplayWebhookRequest) },
  responses: { 202: json(WebhookReplay, "How many deliveries were queued"), 409: errorResponse("The webhook is off") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const replay = await replayWebhook(servicesWithJobsOf(c), authOf(c), c.req.valid("query").user_id, c.req.valid("param").webhook_id, c.req.valid("json"));
    return c.json(replay, 202);
  });
}
