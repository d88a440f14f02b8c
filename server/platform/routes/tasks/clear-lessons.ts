// POST /tasks/{task_id}/lessons:clear?confirm=true: forget every lesson of the task. The ":clear" is
// part of the last path segment; Hono reads a segment as a parameter only when it starts with ":".
import { ClearLessonsQuery, TaskLessons } from "@inlay/core/schemas/lessons";
import { TaskIdParam } from "@inlay/core/schemas/tasks";
import type { PlatformApp } from "../../context";
import { clearTaskLessons } from "../../services/agents/lessons";
import { resolveScope } from "../../services/scope";
import { defineRoute, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "clearTaskLessons",
  method: "post",
  path: "/tasks/{task_id}/lessons:clear",
  tags: ["tasks"],
  summary: "Clear a task's lessons",
  request: { params: TaskIdParam, query: ClearLessonsQuery },
  responses: { 200: json(TaskLessons, "The task's lessons, now none") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const query = c.req.valid("query");
    const scope = await resolveScope(servicesOf(c), authOf(c), query.user_id);
    return c.json(await clearTaskLessons(servicesOf(c), scope, c.req.valid("param").task_id, query.confirm), 200);
  });
}
