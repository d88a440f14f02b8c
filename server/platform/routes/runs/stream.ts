// A run's event log as Server-Sent Events, from a cursor to the run's `done` frame (POST /runs
// streamed, replies, GET /runs/{id}/events). Following the log is the runtime's
// (runtime/follow-run.ts); this only formats it: one `data:` line per frame with its id, and a
// keep-alive comment when the run is idle.
import type { Context } from "hono";
import { logger } from "@/lib/logger";
import type { PlatformEnv } from "../../context";
import { openStreams } from "../../observability/metrics";
import { sseEvent } from "./sse-event";
import { followRunLog } from "../../runtime/follow-run";
import type { RunLogEvent, RunLogItem } from "../../runtime/follow-run";

const encoder = new TextEncoder();

/**
 * `known`: the log's events just after `after` that the caller already has (a new run's first event).
 *
 * The body is one ReadableStream that reads the log when the server asks for more (hono's streamSSE puts
 * a TransformStream and a second ReadableStream between them): a held stream keeps fewer objects, and a
 * batch reaches the socket through fewer promises.
 */
export function streamRun(c: Context<PlatformEnv>, runId: number, after: bigint, known?: RunLogEvent[]): Response {
  const { followers, live, keepAliveMs, draining } = c.var.runtime;
  const closed = new AbortController();
  // A draining process ends the stream where it is: the client resumes on another instance with
  // Last-Event-ID, as after any dropped connection, and sees every frame once.
  const signal = AbortSignal.any([closed.signal, draining]);
  const log = followRunLog({ prisma: c.var.prisma, followers, live, keepAliveMs }, runId, after, signal, known);
  // Open until the log is over, following it failed, or the client went away (cancel): a read still
  // pending when the client went away must not touch the closed stream.
  let open = true;
  const end = () => {
    open = false;
    openStreams.dec();
  };
  openStreams.inc();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let next: IteratorResult<RunLogItem>;
      try {
        next = await log.next();
      } catch (error) {
        if (!open) return;
        // The stream ends as if the connection dropped: the client resumes with Last-Event-ID.
        end();
        logger.error({ err: error, runId }, "following the run's log failed: its stream ends");
        controller.close();
        return;
      }
      if (!open) return;
      if (next.done) {
        end();
        controller.close();
        return;
      }
      const item = next.value;
      // A batch at a time: one chunk for the socket, not one per frame.
      controller.enqueue(encoder.encode("idle" in item ? ": keep-alive\n\n" : item.events.map(({ id, frame }) => sseEvent(id, frame)).join("")));
    },
    // The client went away: following stops (the generator's wait ends on the signal).
    async cancel() {
      // Cancelled after the stream closed itself: nothing left to stop.
      if (!open) return;
      end();
      closed.abort();
      await log.return(undefined);
    },
  });
  // The stream's frames do not name their run; a client that must resume through
  // GET /runs/{run_id}/events learns the id from this header (an Inlay extension).
  c.header("x-run-id", String(runId));
  c.header("Transfer-Encoding", "chunked");
  c.header("Content-Type", "text/event-stream");
  c.header("Cache-Control", "no-cache");
  c.header("Connection", "keep-alive");
  return c.body(body);
}
