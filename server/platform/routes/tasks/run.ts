// POST /tasks/{task_id}/runs: start a run of a task, exactly as POST /runs starts one: SSE by default,
// the run as JSON with stream=false, and an Idempotency-Key replay answered as JSON
// (middleware/idempotency.ts). Omitted user_id and permission_mode inherit the task's.
import { IdempotencyKeyHeaders, UserScopeQuery } from "@inlay/core/schemas/common";
import { Run } from "@inlay/core/schemas/runs";
import { TaskIdParam, TaskRunCreate } from "@inlay/core/schemas/tasks";
import type { PlatformApp } from "../../context";
import { idempotency, idempotently } from "../../middleware/idempotency";
import { pickUserId } from "../../services/scope";
import { findTaskToRun, runTask } from "../../services/tasks/tasks";
import { defineRoute, errorResponse, jsonBody } from "../define";
import { authOf, runServicesOf } from "../request";
import { streamRun } from "../runs/stream";

export const route = defineRoute({
  operationId: "runTask",
  method: "post",
  path: "/tasks/{task_id}/runs",
  tags: ["tasks"],
  summary: "Start a run of a task",
  request: {
    params: TaskIdParam,
    query: UserScopeQuery,
    headers: IdempotencyKeyHeaders,
    body: jsonBody(TaskRunCreate, { required: false }),
  },
  before: [idempotency],
  responses: {
    200: {
      description:
        "With stream=false: the run (task_id set), status running. Otherwise a text/event-stream of frames. An " +
        "idempotent replay answers the original run's current state as JSON, with the header Idempotent-Replay: true.",
      content: { "application/json": { schema: Run }, "text/event-stream": { schema: { type: "string" } } },
    },
    409: errorResponse("Idempotency-Key used with a different request (idempotency_key_reuse) or still in progress"),
  },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const body = c.req.valid("json");
    const userId = pickUserId(c.req.valid("query").user_id, body.user_id);
    const services = runServicesOf(c);
    const task = await findTaskToRun(services, authOf(c), c.req.valid("param").task_id, userId);
    const outcome = await idempotently(c, (claim) => runTask(services, authOf(c), task, { ...body, user_id: userId }, claim));
    if ("replay" in outcome) return outcome.replay as never;
    const { run, first } = outcome.created;
    if (body.stream === false) return c.json(run, 200);
    return streamRun(c, run.id, 0n, first && [first]) as never;
  });
}
