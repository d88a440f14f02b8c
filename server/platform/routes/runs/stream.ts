// Streams a run's event log as Server-Sent Events from a cursor to the run's `done` frame. The POST
// that creates a run and GET /runs/{id}/events both use it, so a reconnecting client (Last-Event-ID)
// sees every frame once. Idle streams get keep-alive comments. A replied run's log holds one `done`
// per request: a stream ends at the first `done` after its cursor.
import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import type { PlatformEnv } from "../../context";
import { eventsAfter, runIsOver } from "../../services/runs";

const KEEP_ALIVE_MS = 15_000;
const BATCH = 500;

export function streamRun(c: Context<PlatformEnv>, runId: number, after: bigint): Response {
  const { prisma } = c.var;
  const { bus, live } = c.var.runtime;
  // The stream's frames do not name their run; a client that must resume through
  // GET /runs/{run_id}/events learns the id from this header (an Inlay extension).
  c.header("x-run-id", String(runId));
  return streamSSE(c, async (stream) => {
    let cursor = after;
    // A wake-up between our read and our wait must not be lost: it sets `dirty`.
    let dirty = false;
    let wake: (() => void) | undefined;
    const unsubscribe = bus.subscribe(runId, () => {
      dirty = true;
      wake?.();
    });
    let closed = false;
    stream.onAbort(() => {
      closed = true;
      wake?.();
    });
    try {
      while (!closed) {
        dirty = false;
        const events = await eventsAfter(prisma, runId, cursor, BATCH);
        for (const event of events) {
          // A metadata_only run's log is redacted; this process may still hold the full frame.
          const frame = live.frame(runId, event.id) ?? event.frame;
          await stream.writeSSE({ id: event.id.toString(), data: JSON.stringify(frame) });
          cursor = event.id;
          if (frame.type === "done") return;
        }
        if (events.length === BATCH || dirty) continue;
        // Nothing new and the run is over (a reconnect after `done`): end instead of idling forever.
        // The done frame may have been committed just after our read; then everything before it is
        // visible now, so read once more before ending. A read that found frames needs no such
        // check: we were subscribed before it, so a `done` committed after it will wake us.
        if (events.length === 0 && (await runIsOver(prisma, runId))) {
          if ((await eventsAfter(prisma, runId, cursor, 1)).length === 0) return;
          continue;
        }
        const idle = await new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(true), KEEP_ALIVE_MS);
          wake = () => {
            clearTimeout(timer);
            resolve(false);
          };
        });
        wake = undefined;
        if (idle && !closed) await stream.write(": keep-alive\n\n");
      }
    } finally {
      unsubscribe();
    }
  });
}
