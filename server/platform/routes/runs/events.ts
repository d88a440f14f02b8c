// GET /runs/{run_id}/events: the run's durable event log as SSE, from Last-Event-ID (or
// ?starting_after=) to the end of the run. An Inlay extension; see docs/platform-api.md. A settled run
// whose log the client has read to its end gets 204: the EventSource standard's "stop reconnecting"
// (an empty 200 makes a browser reconnect every few seconds forever).
import { isSettledStatus, RunEventsHeaders, RunEventsQuery, RunIdParam } from "@inlay/core/schemas/runs";
import type { PlatformApp } from "../../context";
import { PlatformError } from "../../errors";
import { getRun } from "../../services/runs/runs";
import { resolveScope } from "../../services/scope";
import { runLogOver } from "../../runtime/follow-run";
import { defineRoute } from "../define";
import { authOf, runServicesOf, servicesOf } from "../request";
import { streamRun } from "./stream";

export const route = defineRoute({
  operationId: "streamRunEvents",
  method: "get",
  path: "/runs/{run_id}/events",
  tags: ["runs"],
  summary: "Stream a run's events from a cursor",
  request: { params: RunIdParam, query: RunEventsQuery, headers: RunEventsHeaders },
  responses: {
    200: { description: "text/event-stream of the run's frames", content: { "text/event-stream": { schema: { type: "string" } } } },
    204: {
      description: "The run is over and nothing follows the cursor (the client has every frame): an EventSource stops reconnecting",
    },
  },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    // A draining instance opens no new stream (an empty one would read as "the run is over"): the
    // client's retry reaches another instance.
    if (c.var.runtime.draining.aborted) {
      throw new PlatformError({ type: "api_error", status: 503, errorCode: "instance_draining", message: "this instance is stopping: retry, another one answers", headers: { "retry-after": "1" } });
    }
    const query = c.req.valid("query");
    const scope = await resolveScope(servicesOf(c), authOf(c), query.user_id);
    const run = await getRun(runServicesOf(c), scope, c.req.valid("param").run_id);
    const header = c.req.header("last-event-id");
    if (header !== undefined && !/^\d+$/.test(header)) {
      throw new PlatformError({ type: "validation_error", message: "Last-Event-ID: must be an event id" });
    }
    const after = BigInt(header ?? query.starting_after ?? 0);
    if (isSettledStatus(run.status) && (await runLogOver(c.var.prisma, run.id, after))) return c.body(null, 204);
    return streamRun(c, run.id, after) as never;
  });
}
