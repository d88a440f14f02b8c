// DELETE /tasks/{task_id}/triggers/{trigger_id}: remove a trigger; its pending fire does nothing.
import { UserScopeQuery } from "@inlay/core/schemas/common";
import { TaskTriggerParams } from "@inlay/core/schemas/triggers";
import type { PlatformApp } from "../../context";
import { deleteTrigger } from "../../services/tasks/task-triggers";
import { defineRoute, noContent } from "../define";
import { authOf, servicesWithJobsOf } from "../request";

export const route = defineRoute({
  operationId: "deleteTaskTrigger",
  method: "delete",
  path: "/tasks/{task_id}/triggers/{trigger_id}",
  tags: ["tasks"],
  summary: "Delete a trigger",
  request: { params: TaskTriggerParams, query: UserScopeQuery },
  responses: { 204: noContent },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const { task_id, trigger_id } = c.req.valid("param");
    await deleteTrigger(servicesWithJobsOf(c), authOf(c), c.req.valid("query").user_id, task_id, trigger_id);
    return c.body(null, 204);
  });
}
