// POST /tasks/{task_id}/webhook: enable the task's inbound webhook; the URL is in this response only.
// Calling it again rotates the URL (the old one answers 404) and leaves the webhook enabled.
import { UserScopeQuery } from "@inlay/core/schemas/common";
import { TaskIdParam, TaskWebhook, TaskWebhookEnable } from "@inlay/core/schemas/triggers";
import type { PlatformApp } from "../../context";
import { pickUserId } from "../../services/scope";
import { enableTaskWebhook } from "../../services/tasks/task-webhooks";
import { defineRoute, json, jsonBody } from "../define";
import { authOf, baseUrlOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "enableTaskWebhook",
  method: "post",
  path: "/tasks/{task_id}/webhook",
  tags: ["tasks"],
  summary: "Enable (or rotate) the task's inbound webhook",
  request: { params: TaskIdParam, query: UserScopeQuery, body: jsonBody(TaskWebhookEnable, { required: false }) },
  responses: { 200: json(TaskWebhook, "The webhook, enabled, with its webhook_url (shown this once)") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const userId = pickUserId(c.req.valid("query").user_id, c.req.valid("json").user_id);
    return c.json(await enableTaskWebhook(servicesOf(c), authOf(c), userId, c.req.valid("param").task_id, baseUrlOf(c)), 200);
  });
}
