// GET /tasks/{task_id}/triggers/{trigger_id}/fires (extension): each due time of a trigger and what
// came of it (a run, a refusal and its reason, or a skip after downtime), newest first.
import { listEnvelope } from "@inlay/core/schemas/common";
import { ListTriggerFiresQuery, TaskTriggerParams, TriggerFire } from "@inlay/core/schemas/triggers";
import type { PlatformApp } from "../../context";
import { listFires } from "../../services/tasks/task-triggers";
import { defineRoute, json } from "../define";
import { authOf, servicesWithJobsOf } from "../request";

export const route = defineRoute({
  operationId: "listTriggerFires",
  method: "get",
  path: "/tasks/{task_id}/triggers/{trigger_id}/fires",
  tags: ["tasks"],
  summary: "List a trigger's fires",
  request: { params: TaskTriggerParams, query: ListTriggerFiresQuery },
  responses: { 200: json(listEnvelope(TriggerFire), "A page of fires, newest first") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const { task_id, trigger_id } = c.req.valid("param");
    return c.json(await listFires(servicesWithJobsOf(c), authOf(c), task_id, trigger_id, c.req.valid("query")), 200);
  });
}
