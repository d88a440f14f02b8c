// GET /triggers: the account's triggers across its tasks (an end-user's with user_id), ordered by task
// then trigger, paged by the cursor <task_id>:<trigger_id>.
import { listEnvelope } from "@inlay/core/schemas/common";
import { ListTriggersQuery, Trigger } from "@inlay/core/schemas/triggers";
import type { PlatformApp } from "../../context";
import { listAccountTriggers } from "../../services/tasks/task-triggers";
import { defineRoute, json } from "../define";
import { authOf, servicesWithJobsOf } from "../request";

export const route = defineRoute({
  operationId: "listTriggers",
  method: "get",
  path: "/triggers",
  tags: ["tasks"],
  summary: "List triggers across tasks",
  request: { query: ListTriggersQuery },
  responses: { 200: json(listEnvelope(Trigger), "A page of triggers") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    return c.json(await listAccountTriggers(servicesWithJobsOf(c), authOf(c), c.req.valid("query")), 200);
  });
}
