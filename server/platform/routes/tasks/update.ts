// PATCH /tasks/{task_id}: change a task (omitted fields stay; null clears expected_output and goals).
import { UserScopeQuery } from "@inlay/core/schemas/common";
import { Task, TaskIdParam, TaskUpdate } from "@inlay/core/schemas/tasks";
import type { PlatformApp } from "../../context";
import { resolveScope } from "../../services/scope";
import { updateTask } from "../../services/tasks/tasks";
import { defineRoute, json, jsonBody } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "updateTask",
  method: "patch",
  path: "/tasks/{task_id}",
  tags: ["tasks"],
  summary: "Update a task",
  request: { params: TaskIdParam, query: UserScopeQuery, body: jsonBody(TaskUpdate, { required: false }) },
  responses: { 200: json(Task, "The task") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const scope = await resolveScope(servicesOf(c), authOf(c), c.req.valid("query").user_id);
    return c.json(await updateTask(servicesOf(c), scope, c.req.valid("param").task_id, c.req.valid("json")), 200);
  });
}
