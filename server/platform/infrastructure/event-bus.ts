// Wakes whoever streams a run when its event log grows or its status changes. The log itself is the
// truth (readers always re-read from their cursor); a wake-up only says "look again". Readers in this
// process are woken at once; other instances through signals (infrastructure/signals.ts: NOTIFY, the wake-ups
// of one tick in one statement, in the background on the LISTEN connection, so a writer's next frames
// never wait for them nor for the pool). On PGlite every runtime of the process shares one emitter.
// A writer that knows what it committed hands the events to the readers with the wake-up (an
// EventBatch: in this process directly, in the others in the event writer's NOTIFY when they fit): a
// reader whose cursor is at the batch's `after` writes them without reading the log.
import { EventEmitter } from "node:events";
import type { Database } from "@/server/shared/db";
import type { RunFrame } from "@inlay/core/schemas/runs";
import { parseRunNotice } from "../repositories/run-events";
import { sharedEmitter, type Signals } from "./signals";

/**
 * Events just committed to one run's log, in id order, with the id of the run's last event before
 * them (0 when none): whoever has read the log up to `after` has, with these, read it up to the last.
 * The frames are the full ones (a metadata_only run's log holds them redacted).
 */
export interface EventBatch {
  after: bigint;
  events: { id: bigint; frame: RunFrame }[];
  /** The statement that wrote them woke the other instances already (runEventsWakeUp). */
  othersWoken?: boolean;
}

/** The batch to publish for frames just appended (their ids in order, and the run's event before them). */
export const eventBatch = (appended: { after: bigint; ids: bigint[]; othersWoken?: boolean }, frames: RunFrame[]): EventBatch => ({
  after: appended.after,
  events: appended.ids.map((id, index) => ({ id, frame: frames[index]! })),
  ...(appended.othersWoken ? { othersWoken: true } : {}),
});

export type RunEventListener = (batch?: EventBatch) => void;

/** Runs whose last wake-up the bus remembers for a reader that subscribes after it (heardAfter). */
const REMEMBERED_RUNS = 10_000;
/** A wake-up without events: something was written, the log says what. */
const BARE = -1n;
/** After the LISTEN connection came back, how long a new reader reads the log rather than trust heardAfter. */
const GAP_DOUBT_MS = 60_000;

// The signal topic: "run <id>'s log grew".
const RUN_EVENTS = "run-events";

/**
 * The wake-up the event writer's statement sends for every run it writes (PostgreSQL): the signal
 * publish() would send, with the frames when they fit (repositories/run-events.ts, parseRunNotice), and
 * without a round trip of its own. Undefined on PGlite.
 */
export const runEventsWakeUp = (signals: Signals) => signals.notice(RUN_EVENTS);

export interface RunEventBus {
  /**
   * After events of `runId` were committed; `batch` (the committed events) goes to this process's
   * listeners, who have it when this returns. Other instances are told in the background.
   */
  publish(runId: number, batch?: EventBatch): Promise<void>;
  /**
   * Calls `listener` on every publish for `runId` (from any instance); returns the unsubscribe. A
   * publish from this process may carry its events; one from another instance never does.
   */
  subscribe(runId: number, listener: RunEventListener): () => void;
  /**
   * Whether a wake-up for `runId` came that may hold events past `after` (a batch ending past it, or a
   * bare one), among the last runs this process heard of: a reader that starts from events it was
   * handed (not from a read of the log) subscribes, then asks, in the same tick, so nothing falls
   * between the two.
   */
  heardAfter(runId: number, after: bigint): boolean;
  close(): Promise<void>;
}

// Per emitter, as the emitter itself: on PGlite every runtime of the process shares both.
const heardOf = new WeakMap<EventEmitter, Map<number, bigint>>();

function remember(heard: Map<number, bigint>, runId: number, last: bigint) {
  const before = heard.get(runId);
  heard.delete(runId);
  heard.set(runId, before === BARE || last === BARE ? BARE : before !== undefined && before > last ? before : last);
  if (heard.size > REMEMBERED_RUNS) heard.delete(heard.keys().next().value!);
}

export function createRunEventBus(database: Database, signals: Signals): RunEventBus {
  const inProcess = database.driver.kind === "pglite";
  const emitter = inProcess ? sharedEmitter(database) : new EventEmitter();
  emitter.setMaxListeners(0);
  const name = (runId: number) => `run:${runId}`;
  let heard = heardOf.get(emitter);
  if (!heard) heardOf.set(emitter, (heard = new Map()));
  const remembered = heard;
  const local = (runId: number, batch?: EventBatch) => {
    remember(remembered, runId, batch ? (batch.events.at(-1)?.id ?? BARE) : BARE);
    emitter.emit(name(runId), batch);
  };
  const mine = new Set<() => void>();
  // Another instance's writes; on PGlite there is none (its emitter reaches every runtime). The event
  // writer's NOTIFY carries the frames it committed when they fit (a batch: no read of the log); a
  // bare one only names the run.
  const stopRemote = inProcess
    ? () => {}
    : signals.subscribe(RUN_EVENTS, (payload) => {
        const notice = parseRunNotice(payload);
        if (!notice) return;
        const { runId, batch } = notice;
        if (!batch) return local(runId);
        // A run nobody here follows: what a reader that comes later must know, without parsing frames.
        if (emitter.listenerCount(name(runId)) === 0) return remember(remembered, runId, batch.last);
        let events;
        try {
          events = batch.events();
        } catch {
          // Not ours to trust: a bare wake-up, the log has the frames.
          return local(runId);
        }
        local(runId, { after: batch.after, events });
      });
  // Wake-ups may have been lost while the LISTEN connection was down: every reader looks again.
  // A reader that subscribes soon after cannot know what the gap lost either.
  let lastGap = -Infinity;
  const stopGap = signals.onGap(() => {
    lastGap = Date.now();
    for (const event of emitter.eventNames()) if (String(event).startsWith("run:")) emitter.emit(event);
  });
  return {
    async publish(runId, batch) {
      local(runId, batch);
      if (!inProcess && !batch?.othersWoken) signals.publish(RUN_EVENTS, String(runId), { remoteOnly: true });
    },
    subscribe(runId, listener) {
      emitter.on(name(runId), listener);
      const unsubscribe = () => {
        mine.delete(unsubscribe);
        emitter.off(name(runId), listener);
      };
      mine.add(unsubscribe);
      return unsubscribe;
    },
    heardAfter(runId, after) {
      if (Date.now() - lastGap < GAP_DOUBT_MS) return true;
      const last = remembered.get(runId);
      return last !== undefined && (last === BARE || last > after);
    },
    async close() {
      for (const unsubscribe of [...mine]) unsubscribe();
      stopRemote();
      stopGap();
    },
  };
}
