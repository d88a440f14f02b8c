// Streams a run's event log as Server-Sent Events from a cursor to the run's `done` frame. The POST
// that creates a run and GET /runs/{id}/events both use it, so a reconnecting client (Last-Event-ID)
// sees every frame once. Idle streams get keep-alive comments. A replied run's log holds one `done`
// per request: a stream ends at the first `done` after its cursor. A writer in this process hands its
// committed frames to the stream directly; the log is read to catch up and when that chain breaks.
import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import type { PlatformEnv } from "../../context";
import type { RunFrame } from "@/lib/schemas/runs";
import type { EventBatch } from "../../runtime/event-bus";
import { eventsAfter, runIsOver } from "../../services/runs";

const BATCH = 500;

/** One frame as an SSE event. JSON.stringify never emits a raw newline, so a frame is one `data:` line. */
export const sseEvent = (id: bigint | number, frame: RunFrame) => `id: ${id}\ndata: ${JSON.stringify(frame)}\n\n`;

export function streamRun(c: Context<PlatformEnv>, runId: number, after: bigint): Response {
  const { prisma } = c.var;
  const { bus, live, keepAliveMs } = c.var.runtime;
  // The stream's frames do not name their run; a client that must resume through
  // GET /runs/{run_id}/events learns the id from this header (an Inlay extension).
  c.header("x-run-id", String(runId));
  return streamSSE(c, async (stream) => {
    let cursor = after;
    // The log is read when the stream starts, on a plain wake-up (another instance, or a writer that
    // sent no events) and when a batch does not join the cursor. Otherwise frames come with their
    // wake-up from a writer in this process (event-bus.ts, EventBatch), ids included: no read per frame.
    let mustRead = true;
    let pushed: EventBatch[] = [];
    let wake: (() => void) | undefined;
    const unsubscribe = bus.subscribe(runId, (batch) => {
      if (batch) pushed.push(batch);
      else mustRead = true;
      wake?.();
    });
    let closed = false;
    stream.onAbort(() => {
      closed = true;
      wake?.();
    });
    // Frames are written a batch at a time (one write through the stream's web streams, not one per
    // frame).
    const send = async (events: { id: bigint; frame: RunFrame }[]) => {
      let text = "";
      let done = false;
      for (const { id, frame } of events) {
        if (id <= cursor) continue;
        text += sseEvent(id, frame);
        cursor = id;
        if (frame.type === "done") {
          done = true;
          break;
        }
      }
      if (text) await stream.write(text);
      return done;
    };
    try {
      while (!closed) {
        if (mustRead) {
          mustRead = false;
          // Every batch published before this read was committed before it, so the read covers it.
          pushed = [];
          const events = await eventsAfter(prisma, runId, cursor, BATCH);
          // A metadata_only run's log is redacted; this process may still hold the full frame.
          if (await send(events.map((event) => ({ id: event.id, frame: live.frame(runId, event.id) ?? event.frame })))) return;
          if (events.length === BATCH) {
            mustRead = true;
            continue;
          }
          // Nothing new and the run is over (a reconnect after `done`): end instead of idling forever.
          // The done frame may have been committed just after our read; then everything before it is
          // visible now, so read once more before ending. A read that found frames needs no such
          // check: we were subscribed before it, so a `done` committed after it will wake us.
          if (events.length === 0 && !mustRead && pushed.length === 0 && (await runIsOver(prisma, runId))) {
            if ((await eventsAfter(prisma, runId, cursor, 1)).length === 0) return;
            mustRead = true;
            continue;
          }
        }
        while (pushed.length > 0 && !mustRead) {
          const batch = pushed.shift()!;
          const last = batch.events.at(-1)?.id ?? 0n;
          if (last <= cursor) continue; // already read from the log
          // A batch that does not start at our cursor: something came between; the log has it.
          if (batch.after > cursor) {
            mustRead = true;
            break;
          }
          if (await send(batch.events)) return;
        }
        if (mustRead || pushed.length > 0) continue;
        const idle = await new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(true), keepAliveMs);
          wake = () => {
            clearTimeout(timer);
            resolve(false);
          };
        });
        wake = undefined;
        if (idle && !closed) {
          await stream.write(": keep-alive\n\n");
          // A wake-up from another instance can be lost (its NOTIFY failed): an idle stream looks again.
          mustRead = true;
        }
      }
    } finally {
      unsubscribe();
    }
  });
}
