// DELETE /tasks/{task_id}: delete a task with its triggers and lessons; its runs stay (task_id kept).
import { UserScopeQuery } from "@inlay/core/schemas/common";
import { TaskIdParam } from "@inlay/core/schemas/tasks";
import type { PlatformApp } from "../../context";
import { resolveScope } from "../../services/scope";
import { deleteTask } from "../../services/tasks/tasks";
import { defineRoute, noContent } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "deleteTask",
  method: "delete",
  path: "/tasks/{task_id}",
  tags: ["tasks"],
  summary: "Delete a task",
  request: { params: TaskIdParam, query: UserScopeQuery },
  responses: { 204: noContent },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const scope = await resolveScope(servicesOf(c), authOf(c), c.req.valid("query").user_id);
    await deleteTask(servicesOf(c), scope, c.req.valid("param").task_id);
    return c.body(null, 204);
  });
}
