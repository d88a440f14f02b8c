// POST /runs: start a run. Streams its frames as SSE by default; with stream=false answers the run as
// JSON (status running) for the caller to poll. With an Idempotency-Key, a repeat of the same request
// answers the first run's current state as JSON instead (middleware/idempotency.ts).
import { IdempotencyKeyHeaders, UserScopeQuery } from "@inlay/core/schemas/common";
import { Run, RunCreate } from "@inlay/core/schemas/runs";
import type { PlatformApp } from "../../context";
import { idempotency, idempotently } from "../../middleware/idempotency";
import { requestRun } from "../../services/runs/run-target";
import { pickUserId } from "../../services/scope";
import { requestedSkill } from "../../services/agents/skills";
import { defineRoute, errorResponse, jsonBody } from "../define";
import { authOf, runServicesOf } from "../request";
import { streamRun } from "./stream";

export const route = defineRoute({
  operationId: "createRun",
  method: "post",
  path: "/runs",
  tags: ["runs"],
  summary: "Start a run",
  request: { query: UserScopeQuery, headers: IdempotencyKeyHeaders, body: jsonBody(RunCreate) },
  before: [idempotency],
  responses: {
    200: {
      description:
        "With stream=false: the run, status running. Otherwise a text/event-stream of frames. An idempotent " +
        "replay answers the original run's current state as JSON, with the header Idempotent-Replay: true.",
      content: { "application/json": { schema: Run }, "text/event-stream": { schema: { type: "string" } } },
    },
    409: errorResponse("Idempotency-Key used with a different request (idempotency_key_reuse) or still in progress"),
  },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const body = c.req.valid("json");
    const userId = pickUserId(c.req.valid("query").user_id, body.user_id);
    const outcome = await idempotently(c, (claim) => requestRun(runServicesOf(c), authOf(c), userId, { ...body, skill: requestedSkill(body) }, [], claim));
    if ("replay" in outcome) return outcome.replay as never;
    const { run, first } = outcome.created;
    if (body.stream === false) return c.json(run, 200);
    return streamRun(c, run.id, 0n, first && [first]) as never;
  });
}
