// Wakes whoever streams a run when its event log grows or its status changes. The log itself is the
// truth (readers always re-read from their cursor); a wake-up only says "look again". In one process
// (PGlite) an EventEmitter is enough; on PostgreSQL, NOTIFY reaches every instance through LISTEN.
import { EventEmitter } from "node:events";
import type pg from "pg";
import { logger } from "@/lib/logger";
import type { Database } from "@/server/db";

const CHANNEL = "inlay_run_events";

export interface RunEventBus {
  /** After events of `runId` were committed. */
  publish(runId: number): Promise<void>;
  /** Calls `listener` on every publish for `runId` (from any instance); returns the unsubscribe. */
  subscribe(runId: number, listener: () => void): () => void;
  close(): Promise<void>;
}

export function createRunEventBus(database: Database): RunEventBus {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  const local = (runId: number) => emitter.emit(String(runId));
  const subscribe = (runId: number, listener: () => void) => {
    emitter.on(String(runId), listener);
    return () => void emitter.off(String(runId), listener);
  };

  if (database.driver.kind === "pglite") {
    return {
      publish: async (runId) => void local(runId),
      subscribe,
      close: async () => {
        emitter.removeAllListeners();
      },
    };
  }

  const { pool } = database.driver;
  let listener: pg.PoolClient | undefined;
  let closed = false;
  const onNotification = (message: pg.Notification) => {
    if (message.payload) local(Number(message.payload));
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
    async publish(runId) {
      local(runId);
      await pool.query("SELECT pg_notify($1, $2)", [CHANNEL, String(runId)]);
    },
    subscribe,
    async close() {
      closed = true;
      await ready;
      // Destroyed, not returned to the pool: a LISTENing session must not serve other queries.
      listener?.release(true);
      listener = undefined;
      emitter.removeAllListeners();
    },
  };
}
