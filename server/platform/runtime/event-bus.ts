// Wakes whoever streams a run when its event log grows or its status changes. The log itself is the
// truth (readers always re-read from their cursor); a wake-up only says "look again". In one process
// (PGlite) an EventEmitter is enough; on PostgreSQL, NOTIFY reaches every instance through LISTEN.
// Readers in this process are woken at once; the NOTIFYs of one tick go out as one statement
// (payload "<instance>:<run id>,<run id>…"), and an instance ignores its own, already delivered.
// They go out in the background, on the LISTEN connection, not the pool: a writer's next frames never
// wait for them, nor for the pool (which a burst of runs ending, queued on their account's row, can
// hold entirely).
// A writer that knows what it committed hands the events to this process's readers with the wake-up
// (an EventBatch): a reader whose cursor is at the batch's `after` writes them without reading the log.
import { randomBytes } from "node:crypto";
import { EventEmitter } from "node:events";
import type pg from "pg";
import { logger } from "@/lib/logger";
import type { Database } from "@/server/db";
import type { RunFrame } from "@/lib/schemas/runs";

/**
 * Events just committed to one run's log, in id order, with the id of the run's last event before
 * them (0 when none): whoever has read the log up to `after` has, with these, read it up to the last.
 * The frames are the full ones (a metadata_only run's log holds them redacted).
 */
export interface EventBatch {
  after: bigint;
  events: { id: bigint; frame: RunFrame }[];
}

/** The batch to publish for frames just appended (their ids in order, and the run's event before them). */
export const eventBatch = (appended: { after: bigint; ids: bigint[] }, frames: RunFrame[]): EventBatch => ({
  after: appended.after,
  events: appended.ids.map((id, index) => ({ id, frame: frames[index]! })),
});

export type RunEventListener = (batch?: EventBatch) => void;

const CHANNEL = "inlay_run_events";
// NOTIFY payloads must stay under 8,000 bytes.
const PAYLOAD_MAX = 7_000;

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

export function createRunEventBus(database: Database): RunEventBus {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  const local = (runId: number, batch?: EventBatch) => emitter.emit(String(runId), batch);
  const subscribe = (runId: number, listener: RunEventListener) => {
    emitter.on(String(runId), listener);
    return () => void emitter.off(String(runId), listener);
  };

  if (database.driver.kind === "pglite") {
    return {
      publish: async (runId, batch) => void local(runId, batch),
      subscribe,
      close: async () => {
        emitter.removeAllListeners();
      },
    };
  }

  const { pool } = database.driver;
  let listener: pg.PoolClient | undefined;
  let closed = false;
  const instance = randomBytes(6).toString("hex");
  const onNotification = (message: pg.Notification) => {
    const payload = message.payload ?? "";
    const colon = payload.indexOf(":");
    if (colon < 0 || payload.slice(0, colon) === instance) return;
    for (const id of payload.slice(colon + 1).split(",")) if (id) local(Number(id));
  };
  // Run ids published this tick, sent together by the next flush; `sent`, the last NOTIFY sent (the
  // listener's connection runs them in order), for close() to wait for.
  let queued = new Set<number>();
  let sending: Promise<void> | undefined;
  let sent: Promise<void> = Promise.resolve();
  const send = async () => {
    await new Promise<void>((resolve) => setImmediate(resolve));
    const ids = [...queued];
    queued = new Set();
    sending = undefined;
    const payloads: string[] = [];
    let current = "";
    for (const id of ids) {
      const next = current ? `${current},${id}` : String(id);
      if (next.length > PAYLOAD_MAX - instance.length - 1) {
        payloads.push(current);
        current = String(id);
      } else current = next;
    }
    if (current) payloads.push(current);
    const params = payloads.map((ids) => `${instance}:${ids}`);
    const calls = params.map((_, index) => `pg_notify($1, $${index + 2})`).join(", ");
    try {
      await (listener ?? pool).query(`SELECT ${calls}`, [CHANNEL, ...params]);
    } catch (error) {
      // Other instances' readers find the events when they next look at the log (an idle stream looks
      // at every keep-alive, RunTimings.keepAliveMs).
      logger.warn({ err: error }, "could not NOTIFY run events");
    }
  };
  const connect = async (): Promise<void> => {
    if (closed) return;
    let client: pg.PoolClient | undefined;
    try {
      client = await pool.connect();
      const own = client;
      own.on("notification", onNotification);
      own.on("error", (error) => {
        // Only the live listener reconnects; a client we already let go of is nobody's business.
        if (closed || listener !== own) return;
        logger.warn({ err: error }, "run event listener lost its connection; reconnecting");
        listener = undefined;
        own.release(true);
        // Wake everyone: while disconnected we may have missed notifications.
        for (const name of emitter.eventNames()) emitter.emit(name);
        setTimeout(() => void connect(), 500);
      });
      await own.query(`LISTEN ${CHANNEL}`);
      listener = own;
    } catch (error) {
      client?.release(true);
      logger.warn({ err: error }, "could not LISTEN for run events; retrying");
      if (!closed) setTimeout(() => void connect(), 1_000);
    }
  };
  const ready = connect();
  return {
    async publish(runId, batch) {
      local(runId, batch);
      queued.add(runId);
      // After the NOTIFY in flight: one query at a time on the listener's connection (pg queues a
      // second one, but it is deprecated), and what is published meanwhile goes out together.
      if (!sending) sent = sending = sent.then(send);
    },
    subscribe,
    async close() {
      closed = true;
      await ready;
      await sent;
      // Destroyed, not returned to the pool: a LISTENing session must not serve other queries.
      listener?.release(true);
      listener = undefined;
      emitter.removeAllListeners();
    },
  };
}
