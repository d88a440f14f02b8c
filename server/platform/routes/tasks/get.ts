// GET /tasks/{task_id}: one task of the scope.
import { UserScopeQuery } from "@inlay/core/schemas/common";
import { Task, TaskIdParam } from "@inlay/core/schemas/tasks";
import type { PlatformApp } from "../../context";
import { resolveScope } from "../../services/scope";
import { getTask } from "../../services/tasks/tasks";
import { defineRoute, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "getTask",
  method: "get",
  path: "/tasks/{task_id}",
  tags: ["tasks"],
  summary: "Get a task",
  request: { params: TaskIdParam, query: UserScopeQuery },
  responses: { 200: json(Task, "The task") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const scope = await resolveScope(servicesOf(c), authOf(c), c.req.valid("query").user_id);
    return c.json(await getTask(servicesOf(c), scope, c.req.valid("param").task_id), 200);
  });
}
