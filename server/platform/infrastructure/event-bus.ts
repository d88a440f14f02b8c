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
import type { RunFrame } from "@/lib/schemas/runs";
import { parseRunNotice } from "../repositories/runs";
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

// The signal topic: "run <id>'s log grew".
const RUN_EVENTS = "run-events";

/**
 * The wake-up the event writer's statement sends for every run it writes (PostgreSQL): the signal
 * publish() would send, with the frames when they fit (repositories/runs.ts, parseRunNotice), and
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
  close(): Promise<void>;
}

export function createRunEventBus(database: Database, signals: Signals): RunEventBus {
  const inProcess = database.driver.kind === "pglite";
  const emitter = inProcess ? sharedEmitter(database) : new EventEmitter();
  emitter.setMaxListeners(0);
  const name = (runId: number) => `run:${runId}`;
  const local = (runId: number, batch?: EventBatch) => emitter.emit(name(runId), batch);
  const mine = new Set<() => void>();
  // Another instance's writes; on PGlite there is none (its emitter reaches every runtime). The event
  // writer's NOTIFY carries the frames it committed when they fit (a batch: no read of the log); a
  // bare one only names the run.
  const stopRemote = inProcess
    ? () => {}
    : signals.subscribe(RUN_EVENTS, (payload) => {
        const notice = parseRunNotice(payload);
        if (!notice) return;
        local(notice.runId, notice.events && notice.after !== undefined ? { after: notice.after, events: notice.events } : undefined);
      });
  // Wake-ups may have been lost while the LISTEN connection was down: every reader looks again.
  const stopGap = signals.onGap(() => {
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
    async close() {
      for (const unsubscribe of [...mine]) unsubscribe();
      stopRemote();
      stopGap();
    },
  };
}
