// POST /runs/{run_id}/reply: continue a finished run's conversation with a new message, on the same
// run and without questions, approvals or plan mode. Streams like POST /runs (from the reply's first
// frame); stream=false answers the run as JSON. Idempotency-Key as on POST /runs.
import { IdempotencyKeyHeaders, UserScopeQuery } from "@inlay/core/schemas/common";
import { Run, RunIdParam, RunReply } from "@inlay/core/schemas/runs";
import type { PlatformApp } from "../../context";
import { idempotency, idempotently } from "../../middleware/idempotency";
import { replyToRun } from "../../services/runs/run-conversation";
import { pickUserId, resolveScope } from "../../services/scope";
import { requestedSkill } from "../../services/agents/skills";
import { defineRoute, errorResponse, jsonBody } from "../define";
import { authOf, runServicesOf, servicesOf } from "../request";
import { streamRun } from "./stream";

export const replyResponses = {
  200: {
    description:
      "With stream=false: the run, status running again. Otherwise a text/event-stream of the reply's frames, " +
      "ending with its done frame. An idempotent replay answers the run's current state as JSON.",
    content: { "application/json": { schema: Run }, "text/event-stream": { schema: { type: "string" as const } } },
  },
  409: errorResponse(
    "The run is still running or waiting for a person, is closed or archived, ran under metadata_only " +
      "retention (conversation_not_retained), or the Idempotency-Key was used with a different request",
  ),
};

export const route = defineRoute({
  operationId: "replyToRun",
  method: "post",
  path: "/runs/{run_id}/reply",
  tags: ["runs"],
  summary: "Reply to a run",
  request: { params: RunIdParam, query: UserScopeQuery, headers: IdempotencyKeyHeaders, body: jsonBody(RunReply) },
  before: [idempotency],
  responses: replyResponses,
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const body = c.req.valid("json");
    const userId = pickUserId(c.req.valid("query").user_id, body.user_id);
    const scope = await resolveScope(servicesOf(c), authOf(c), userId);
    const outcome = await idempotently(c, (claim) =>
      replyToRun(runServicesOf(c), scope, c.req.valid("param").run_id, { ...body, skill: requestedSkill(body) }, [], claim),
    );
    if ("replay" in outcome) return outcome.replay as never;
    const { run, after } = outcome.created;
    if (body.stream === false) return c.json(run, 200);
    return streamRun(c, run.id, after) as never;
  });
}
