// GET /tasks/{task_id}/triggers: a task's triggers.
import { listEnvelope, UserScopeQuery } from "@inlay/core/schemas/common";
import { TaskIdParam, Trigger } from "@inlay/core/schemas/triggers";
import type { PlatformApp } from "../../context";
import { listTaskTriggers } from "../../services/tasks/task-triggers";
import { defineRoute, json } from "../define";
import { authOf, servicesWithJobsOf } from "../request";

export const route = defineRoute({
  operationId: "listTaskTriggers",
  method: "get",
  path: "/tasks/{task_id}/triggers",
  tags: ["tasks"],
  summary: "List a task's triggers",
  request: { params: TaskIdParam, query: UserScopeQuery },
  responses: { 200: json(listEnvelope(Trigger), "The task's triggers, oldest first") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    return c.json(await listTaskTriggers(servicesWithJobsOf(c), authOf(c), c.req.valid("query").user_id, c.req.valid("param").task_id), 200);
  });
}
