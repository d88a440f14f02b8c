// PATCH /tasks/{task_id}/webhook: pause (enabled: false) or resume (true) the task's webhook; its URL
// is unchanged and not shown.
import { UserScopeQuery } from "@inlay/core/schemas/common";
import { TaskIdParam, TaskWebhook, TaskWebhookUpdate } from "@inlay/core/schemas/triggers";
import type { PlatformApp } from "../../context";
import { updateTaskWebhook } from "../../services/tasks/task-webhooks";
import { defineRoute, json, jsonBody } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "updateTaskWebhook",
  method: "patch",
  path: "/tasks/{task_id}/webhook",
  tags: ["tasks"],
  summary: "Pause or resume the task's webhook",
  request: { params: TaskIdParam, query: UserScopeQuery, body: jsonBody(TaskWebhookUpdate) },
  responses: { 200: json(TaskWebhook, "The webhook") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const { enabled } = c.req.valid("json");
    return c.json(await updateTaskWebhook(servicesOf(c), authOf(c), c.req.valid("query").user_id, c.req.valid("param").task_id, enabled), 200);
  });
}
