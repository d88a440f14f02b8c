// POST /runs/first-session: an agent's first session, in which it introduces itself from its
// instructions (services/runs/run-conversation.ts has the message). Streams like POST /runs.
import { IdempotencyKeyHeaders, UserScopeQuery } from "@inlay/core/schemas/common";
import { FirstSessionCreate } from "@inlay/core/schemas/runs";
import type { PlatformApp } from "../../context";
import { idempotency, idempotently } from "../../middleware/idempotency";
import { startFirstSession } from "../../services/runs/run-conversation";
import { pickUserId } from "../../services/scope";
import { defineRoute, errorResponse, jsonBody } from "../define";
import { authOf, runServicesOf } from "../request";
import { route as createRoute } from "./create";
import { streamRun } from "./stream";

export const route = defineRoute({
  operationId: "createFirstSession",
  method: "post",
  path: "/runs/first-session",
  tags: ["runs"],
  summary: "Start an agent's first session",
  request: { query: UserScopeQuery, headers: IdempotencyKeyHeaders, body: jsonBody(FirstSessionCreate) },
  before: [idempotency],
  responses: {
    200: createRoute.responses[200],
    409: errorResponse("The agent is disabled, or the Idempotency-Key was used with a different request"),
  },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const body = c.req.valid("json");
    const userId = pickUserId(c.req.valid("query").user_id, body.user_id);
    const outcome = await idempotently(c, (claim) => startFirstSession(runServicesOf(c), authOf(c), userId, body, claim));
    if ("replay" in outcome) return outcome.replay as never;
    const { run, first } = outcome.created;
    if (body.stream === false) return c.json(run, 200);
    return streamRun(c, run.id, 0n, first && [first]) as never;
  });
}
