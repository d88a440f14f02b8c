// Following a run's event log from a cursor to the run's `done` frame: what POST /runs (streamed) and
// GET /runs/{id}/events send, so a reconnecting client (Last-Event-ID) sees every frame once. A
// replied run's log holds one `done` per request: following ends at the first `done` after the cursor.
// A writer in this process hands its committed frames over directly (event-bus.ts, EventBatch, ids
// included: no read per frame); what another instance wrote is read once for all of this instance's
// readers of the run (infrastructure/run-followers.ts) and handed over the same way. A reader reads the
// log itself when following starts, when a batch does not join its cursor, on a plain wake-up (that
// shared read failed), and after an idle wait (a NOTIFY from another instance can be lost).
// routes/runs/stream.ts only formats what this yields.
import { setTimeout as delay } from "node:timers/promises";
import type { RunFrame } from "@inlay/core/schemas/runs";
import { isDatabaseUnavailable } from "../../shared/db-errors";
import type { Db } from "../repositories/db";
import { eventsAfter, hasDoneEvent } from "../repositories/run-events";
import type { EventBatch } from "../infrastructure/event-bus";
import type { RunFollowers } from "../infrastructure/run-followers";
import type { LiveContent } from "../infrastructure/live-content";

const BATCH = 500;

export interface RunLogEvent {
  id: bigint;
  frame: RunFrame;
}

/** Frames to send (in order, after the cursor), or a wait of `keepAliveMs` with nothing new. */
export type RunLogItem = { events: RunLogEvent[] } | { idle: true };

export interface FollowDeps {
  prisma: Db;
  followers: RunFollowers;
  live: LiveContent;
  keepAliveMs: number;
}

/**
 * Nothing is left to follow from the cursor: the log ends with a `done` at or before it. (A replied run
 * writes past its `done`, so callers also check that the run is settled.)
 */
export async function runLogOver(prisma: Db, runId: number, after: bigint): Promise<boolean> {
  return (await hasDoneEvent(prisma, runId)) && (await eventsAfter(prisma, runId, after, 1)).length === 0;
}

/**
 * `known`: the log's events just after `after`, handed over by whoever wrote them (a new run's first
 * event, from the statement that inserted it): sent first, and the log is read only if a wake-up for the
 * run came before this reader subscribed (RunFollowers.heardAfter).
 */
export async function* followRunLog(
  deps: FollowDeps,
  runId: number,
  after: bigint,
  signal: AbortSignal,
  known: RunLogEvent[] = [],
): AsyncGenerator<RunLogItem> {
  const { prisma, followers, live, keepAliveMs } = deps;
  let cursor = after;
  let mustRead = true;
  // The last wait for a database that did not answer (0 while it does).
  let awayMs = 0;
  let pushed: EventBatch[] = [];
  let wake: (() => void) | undefined;
  // Taken before subscribing, so the run's follower starts past them too.
  const start = known.length > 0 ? take(known) : undefined;
  const unsubscribe = followers.subscribe(runId, cursor, (batch) => {
    if (batch) pushed.push(batch);
    else mustRead = true;
    wake?.();
  });
  // In the tick of the subscription: whatever came before it is remembered, whatever comes after is pushed.
  if (start) mustRead = followers.heardAfter(runId, cursor);
  const onAbort = () => wake?.();
  signal.addEventListener("abort", onAbort);

  /** The events past the cursor, up to and including a `done`; moves the cursor. */
  function take(events: RunLogEvent[]) {
    const fresh: RunLogEvent[] = [];
    let done = false;
    for (const event of events) {
      if (event.id <= cursor) continue;
      fresh.push(event);
      cursor = event.id;
      if (event.frame.type === "done") {
        done = true;
        break;
      }
    }
    return { fresh, done };
  }

  try {
    if (start?.fresh.length) yield { events: start.fresh };
    if (start?.done) return;
    while (!signal.aborted) {
      if (mustRead) {
        mustRead = false;
        // Every batch published before this read was committed before it, so the read covers it.
        pushed = [];
        let events: Awaited<ReturnType<typeof eventsAfter>>;
        try {
          events = await eventsAfter(prisma, runId, cursor, BATCH);
          awayMs = 0;
        } catch (error) {
          if (!isDatabaseUnavailable(error)) throw error;
          // The database is away (a restart): the reader waits for it, keeping its client's stream
          // open, rather than send the client to reconnect to a process that cannot answer either.
          mustRead = true;
          awayMs = Math.min(2_000, Math.max(100, awayMs * 2));
          await delay(awayMs, undefined, { signal }).catch(() => {});
          yield { idle: true };
          continue;
        }
        // A metadata_only run's log is redacted; this process may still hold the full frame.
        const { fresh, done } = take(events.map((event) => ({ id: event.id, frame: live.frame(runId, event.id) ?? event.frame })));
        if (fresh.length > 0) yield { events: fresh };
        if (done) return;
        if (events.length === BATCH) {
          mustRead = true;
          continue;
        }
        // Nothing new and the run is over (a reconnect after `done`): end instead of idling forever.
        // The done frame may have been committed just after our read; then everything before it is
        // visible now, so read once more before ending. A read that found frames needs no such
        // check: we were subscribed before it, so a `done` committed after it will wake us.
        if (events.length === 0 && !mustRead && pushed.length === 0 && (await hasDoneEvent(prisma, runId))) {
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
        const { fresh, done } = take(batch.events);
        if (fresh.length > 0) yield { events: fresh };
        if (done) return;
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
      if (idle && !signal.aborted) {
        yield { idle: true };
        mustRead = true;
      }
    }
  } finally {
    unsubscribe();
    signal.removeEventListener("abort", onAbort);
  }
}
