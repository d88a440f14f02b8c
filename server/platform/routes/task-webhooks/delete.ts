// DELETE /tasks/{task_id}/webhook: remove the task's webhook and its trigger; the URL answers 404.
import { UserScopeQuery } from "@inlay/core/schemas/common";
import { TaskIdParam } from "@inlay/core/schemas/triggers";
import type { PlatformApp } from "../../context";
import { deleteTaskWebhook } from "../../services/tasks/task-webhooks";
import { defineRoute, noContent } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "deleteTaskWebhook",
  method: "delete",
  path: "/tasks/{task_id}/webhook",
  tags: ["tasks"],
  summary: "Remove the task's webhook",
  request: { params: TaskIdParam, query: UserScopeQuery },
  responses: { 204: noContent },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    await deleteTaskWebhook(servicesOf(c), authOf(c), c.req.valid("query").user_id, c.req.valid("param").task_id);
    return c.body(null, 204);
  });
}
