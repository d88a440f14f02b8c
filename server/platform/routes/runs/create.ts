// POST /runs: start a run. Streams its frames as SSE by default; with stream=false answers the run as
// JSON (status running) for the caller to poll.
import { UserScopeQuery } from "@/lib/schemas/common";
import { Run, RunCreate } from "@/lib/schemas/runs";
import type { PlatformApp } from "../../context";
import { createRun } from "../../services/runs";
import { pickUserId } from "../../services/scope";
import { defineRoute, jsonBody } from "../define";
import { authOf, runServicesOf } from "../request";
import { streamRun } from "./stream";

export const route = defineRoute({
  operationId: "createRun",
  method: "post",
  path: "/runs",
  tags: ["runs"],
  summary: "Start a run",
  request: { query: UserScopeQuery, body: jsonBody(RunCreate) },
  responses: {
    200: {
      description: "With stream=false: the run, status running. Otherwise a text/event-stream of frames.",
      content: { "application/json": { schema: Run }, "text/event-stream": { schema: { type: "string" } } },
    },
  },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const body = c.req.valid("json");
    const userId = pickUserId(c.req.valid("query").user_id, body.user_id);
    const { run } = await createRun(runServicesOf(c), authOf(c), userId, body);
    if (body.stream === false) return c.json(run, 200);
    return streamRun(c, run.id, 0n) as never;
  });
}
