// DELETE /tasks/{task_id}/lessons/{lesson_id}: forget one lesson; answers with the lessons left.
import { UserScopeQuery } from "@inlay/core/schemas/common";
import { LessonIdParams, TaskLessons } from "@inlay/core/schemas/lessons";
import type { PlatformApp } from "../../context";
import { deleteTaskLesson } from "../../services/agents/lessons";
import { resolveScope } from "../../services/scope";
import { defineRoute, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "deleteTaskLesson",
  method: "delete",
  path: "/tasks/{task_id}/lessons/{lesson_id}",
  tags: ["tasks"],
  summary: "Delete a lesson of a task",
  request: { params: LessonIdParams, query: UserScopeQuery },
  responses: { 200: json(TaskLessons, "The task's lessons after the deletion") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const scope = await resolveScope(servicesOf(c), authOf(c), c.req.valid("query").user_id);
    const { task_id, lesson_id } = c.req.valid("param");
    return c.json(await deleteTaskLesson(servicesOf(c), scope, task_id, lesson_id), 200);
  });
}
