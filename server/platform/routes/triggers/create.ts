// POST /tasks/{task_id}/triggers: add a trigger to a task: a schedule (cron, interval or run_at) or its
// webhook (as POST /tasks/{task_id}/webhook: the response carries webhook_url, once).
import { UserScopeQuery } from "@inlay/core/schemas/common";
import { TaskIdParam, Trigger, TriggerCreate } from "@inlay/core/schemas/triggers";
import type { PlatformApp } from "../../context";
import { pickUserId } from "../../services/scope";
import { createTrigger } from "../../services/tasks/task-triggers";
import { defineRoute, json, jsonBody } from "../define";
import { authOf, baseUrlOf, servicesWithJobsOf } from "../request";

export const route = defineRoute({
  operationId: "createTaskTrigger",
  method: "post",
  path: "/tasks/{task_id}/triggers",
  tags: ["tasks"],
  summary: "Add a trigger to a task",
  request: { params: TaskIdParam, query: UserScopeQuery, body: jsonBody(TriggerCreate) },
  responses: { 201: json(Trigger, "The trigger; a webhook trigger with its webhook_url (shown this once)") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const body = c.req.valid("json");
    const userId = pickUserId(c.req.valid("query").user_id, body.user_id);
    return c.json(await createTrigger(servicesWithJobsOf(c), authOf(c), userId, c.req.valid("param").task_id, body, baseUrlOf(c)), 201);
  });
}
