// GET /tasks: the scope's tasks, oldest first, optionally of one agent.
import { listEnvelope } from "@inlay/core/schemas/common";
import { ListTasksQuery, Task } from "@inlay/core/schemas/tasks";
import type { PlatformApp } from "../../context";
import { resolveScope } from "../../services/scope";
import { listTasks } from "../../services/tasks/tasks";
import { defineRoute, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "listTasks",
  method: "get",
  path: "/tasks",
  tags: ["tasks"],
  summary: "List tasks",
  request: { query: ListTasksQuery },
  responses: { 200: json(listEnvelope(Task), "A page of tasks") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const query = c.req.valid("query");
    const scope = await resolveScope(servicesOf(c), authOf(c), query.user_id, { strict: true });
    return c.json(await listTasks(servicesOf(c), scope, query), 200);
  });
}
