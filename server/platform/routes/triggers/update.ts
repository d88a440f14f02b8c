// PATCH /tasks/{task_id}/triggers/{trigger_id}: enable or disable, or change when it fires.
import { UserScopeQuery } from "@inlay/core/schemas/common";
import { TaskTriggerParams, Trigger, TriggerUpdate } from "@inlay/core/schemas/triggers";
import type { PlatformApp } from "../../context";
import { updateTrigger } from "../../services/tasks/task-triggers";
import { defineRoute, json, jsonBody } from "../define";
import { authOf, servicesWithJobsOf } from "../request";

export const route = defineRoute({
  operationId: "updateTaskTrigger",
  method: "patch",
  path: "/tasks/{task_id}/triggers/{trigger_id}",
  tags: ["tasks"],
  summary: "Update a trigger",
  request: { params: TaskTriggerParams, query: UserScopeQuery, body: jsonBody(TriggerUpdate, { required: false }) },
  responses: { 200: json(Trigger, "The trigger") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const { task_id, trigger_id } = c.req.valid("param");
    return c.json(await updateTrigger(servicesWithJobsOf(c), authOf(c), c.req.valid("query").user_id, task_id, trigger_id, c.req.valid("json")), 200);
  });
}
