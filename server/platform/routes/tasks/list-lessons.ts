// GET /tasks/{task_id}/lessons: the task's lessons, newest first, with its capacity.
import { UserScopeQuery } from "@inlay/core/schemas/common";
import { TaskLessons } from "@inlay/core/schemas/lessons";
import { TaskIdParam } from "@inlay/core/schemas/tasks";
import type { PlatformApp } from "../../context";
import { listTaskLessons } from "../../services/agents/lessons";
import { resolveScope } from "../../services/scope";
import { defineRoute, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "listTaskLessons",
  method: "get",
  path: "/tasks/{task_id}/lessons",
  tags: ["tasks"],
  summary: "List a task's lessons",
  request: { params: TaskIdParam, query: UserScopeQuery },
  responses: { 200: json(TaskLessons, "The task's lessons") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const scope = await resolveScope(servicesOf(c), authOf(c), c.req.valid("query").user_id);
    return c.json(await listTaskLessons(servicesOf(c), scope, c.req.valid("param").task_id), 200);
  });
}
