// A run's event log as Server-Sent Events, from a cursor to the run's `done` frame (POST /runs
// streamed, replies, GET /runs/{id}/events). Following the log is the runtime's
// (runtime/follow-run.ts); this only formats it: one `data:` line per frame with its id, and a
// keep-alive comment when the run is idle.
import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import type { PlatformEnv } from "../../context";
import type { RunFrame } from "@/lib/schemas/runs";
import { openStreams } from "../../observability/metrics";
import { followRunLog, type RunLogEvent } from "../../runtime/follow-run";

/** One frame as an SSE event. JSON.stringify never emits a raw newline, so a frame is one `data:` line. */
export const sseEvent = (id: bigint | number, frame: RunFrame) => `id: ${id}\ndata: ${JSON.stringify(frame)}\n\n`;

/** `known`: the log's events just after `after` that the caller already has (a new run's first event). */
export function streamRun(c: Context<PlatformEnv>, runId: number, after: bigint, known?: RunLogEvent[]): Response {
  const { followers, live, keepAliveMs, draining } = c.var.runtime;
  // The stream's frames do not name their run; a client that must resume through
  // GET /runs/{run_id}/events learns the id from this header (an Inlay extension).
  c.header("x-run-id", String(runId));
  return streamSSE(c, async (stream) => {
    const closed = new AbortController();
    stream.onAbort(() => closed.abort());
    // A draining process ends the stream where it is: the client resumes on another instance with
    // Last-Event-ID, as after any dropped connection, and sees every frame once.
    const signal = AbortSignal.any([closed.signal, draining]);
    openStreams.inc();
    try {
      for await (const item of followRunLog({ prisma: c.var.prisma, followers, live, keepAliveMs }, runId, after, signal, known)) {
        // A batch at a time: one write through the stream's web streams, not one per frame.
        await stream.write("idle" in item ? ": keep-alive\n\n" : item.events.map(({ id, frame }) => sseEvent(id, frame)).join(""));
      }
    } finally {
      openStreams.dec();
    }
  });
}
