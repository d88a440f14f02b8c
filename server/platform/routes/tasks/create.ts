// POST /tasks: create a task for an agent of the scope.
import { UserScopeQuery } from "@inlay/core/schemas/common";
import { Task, TaskCreate } from "@inlay/core/schemas/tasks";
import type { PlatformApp } from "../../context";
import { pickUserId, resolveScope } from "../../services/scope";
import { createTask } from "../../services/tasks/tasks";
import { defineRoute, json, jsonBody } from "../define";
import { authOf, baseUrlOf, servicesOf, servicesWithJobsOf } from "../request";

export const route = defineRoute({
  operationId: "createTask",
  method: "post",
  path: "/tasks",
  tags: ["tasks"],
  summary: "Create a task",
  request: { query: UserScopeQuery, body: jsonBody(TaskCreate) },
  responses: { 201: json(Task, "The task; with webhook: true, its webhook_url (shown this once)") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const body = c.req.valid("json");
    const userId = pickUserId(c.req.valid("query").user_id, body.user_id);
    const scope = await resolveScope(servicesOf(c), authOf(c), userId, { strict: true });
    return c.json(await createTask(servicesWithJobsOf(c), scope, body, baseUrlOf(c)), 201);
  });
}
