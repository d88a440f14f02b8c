// Small messages between the processes of one deployment: "a run is ready to be claimed", "this key
// was revoked". In one process (PGlite) an EventEmitter is enough; on PostgreSQL every instance
// LISTENs on one channel and a publish NOTIFYs it. A listener in the publishing process is called at
// once; other instances are told in the background, the publishes of one tick in one statement, on the
// LISTEN connection (not the pool). A signal is a hint, never the truth: whoever acts on one reads the
// database, and a lost one (a dropped connection) only delays what a periodic look would find anyway.
import { randomBytes } from "node:crypto";
import { EventEmitter } from "node:events";
import type pg from "pg";
import { logger } from "@/lib/logger";
import type { Database } from "@/server/shared/db";

const CHANNEL = "inlay_signals";
// NOTIFY payloads must stay under 8,000 bytes.
const PAYLOAD_MAX = 7_000;

export type SignalListener = (payload: string) => void;

export interface Signals {
  /**
   * Calls this process's listeners of `topic` now (unless `remoteOnly`: the caller told them itself)
   * and every other instance's soon after.
   */
  publish(topic: string, payload?: string, options?: { remoteOnly?: boolean; localOnly?: boolean }): void;
  /** Calls `listener` on every publish of `topic`, from any instance; returns the unsubscribe. */
  subscribe(topic: string, listener: SignalListener): () => void;
  /**
   * Calls `listener` whenever signals from other instances may have been lost (the LISTEN connection
   * dropped and came back): whoever relies on them should look at the database again.
   */
  onGap(listener: () => void): () => void;
  /**
   * A NOTIFY a statement can send itself, with the payload `prefix` + the signal's payload: other
   * instances hear a publish of `topic` when that statement commits (this one ignores it, as its own
   * publishes). Undefined where signals are not NOTIFYs (PGlite).
   */
  notice(topic: string): { channel: string; prefix: string } | undefined;
  /**
   * Resolves once everything published so far has been sent to the other instances (its NOTIFY
   * done): a response sent after it does not leave before its signal (a revoked key).
   */
  flushed(): Promise<void>;
  /** Waits for the NOTIFYs already queued, then drops the LISTEN connection. */
  close(): Promise<void>;
}

// A NOTIFY's payload: the sender's instance id, then one "<topic>\t<payload>" per line. The database
// itself sends some (a trigger, as "database"): see the webhooks migration.
function deliverNotification(text: string, instance: string | undefined, local: (topic: string, payload: string) => void) {
  // This instance's own, told to its listeners as it published: dropped before its lines are split
  // (every frame a worker writes comes back to it this way).
  if (instance !== undefined && (text === instance || text.startsWith(`${instance}\n`))) return;
  const [, ...messages] = text.split("\n");
  for (const entry of messages) {
    const tab = entry.indexOf("\t");
    if (tab > 0) local(entry.slice(0, tab), entry.slice(tab + 1));
  }
}

// PGlite lives in one process: every runtime over the same PGlite (tests that stand two instances on
// one database) shares its emitter, as instances on PostgreSQL share the channel.
const pgliteEmitters = new WeakMap<object, EventEmitter>();

/** One emitter per PGlite database (hearing the database's own NOTIFYs), or a new one. */
export function sharedEmitter(database: Database): EventEmitter {
  const pglite = database.driver.kind === "pglite" ? database.driver.pglite : undefined;
  let emitter = pglite && pgliteEmitters.get(pglite);
  if (!emitter) {
    const created = new EventEmitter();
    created.setMaxListeners(0);
    emitter = created;
    if (pglite) {
      pgliteEmitters.set(pglite, created);
      // Closed with the database; a failure only loses hints (whoever relies on them also polls).
      pglite
        .listen(CHANNEL, (text) => deliverNotification(text, undefined, (topic, payload) => created.emit(`t:${topic}`, payload)))
        .catch((error: unknown) => logger.warn({ err: error }, "could not LISTEN for database signals"));
    }
  }
  return emitter;
}

export function createSignals(database: Database): Signals {
  const emitter = database.driver.kind === "pglite" ? sharedEmitter(database) : new EventEmitter();
  emitter.setMaxListeners(0);
  const local = (topic: string, payload: string) => emitter.emit(`t:${topic}`, payload);
  const subscribe = (topic: string, listener: SignalListener) => {
    emitter.on(`t:${topic}`, listener);
    return () => void emitter.off(`t:${topic}`, listener);
  };
  const onGap = (listener: () => void) => {
    emitter.on("gap", listener);
    return () => void emitter.off("gap", listener);
  };

  if (database.driver.kind === "pglite") {
    const mine = new Set<() => void>();
    const track = (unsubscribe: () => void) => {
      mine.add(unsubscribe);
      return () => {
        mine.delete(unsubscribe);
        unsubscribe();
      };
    };
    return {
      // One process: a remote-only publish has nobody to reach.
      publish: (topic, payload = "", options) => void (options?.remoteOnly ? undefined : local(topic, payload)),
      subscribe: (topic, listener) => track(subscribe(topic, listener)),
      onGap: (listener) => track(onGap(listener)),
      notice: () => undefined,
      flushed: async () => {},
      // Only this runtime's listeners: the emitter is the database's.
      close: async () => {
        for (const unsubscribe of [...mine]) unsubscribe();
      },
    };
  }

  // LISTEN needs a session of its own: DATABASE_DIRECT_URL's pool behind a pooler in transaction mode.
  const { session: pool } = database.driver;
  const instance = randomBytes(6).toString("hex");
  let listener: pg.PoolClient | undefined;
  let closed = false;
  // Messages "<topic>\t<payload>" queued this tick, deduplicated; sent by the next flush.
  let queued = new Set<string>();
  let sending: Promise<void> | undefined;
  let sent: Promise<void> = Promise.resolve();

  const onNotification = (message: pg.Notification) => deliverNotification(message.payload ?? "", instance, local);

  const send = async () => {
    await new Promise<void>((resolve) => setImmediate(resolve));
    const messages = [...queued];
    queued = new Set();
    sending = undefined;
    const payloads: string[] = [];
    let current = instance;
    for (const message of messages) {
      if (current.length + message.length + 1 > PAYLOAD_MAX && current !== instance) {
        payloads.push(current);
        current = instance;
      }
      current += `\n${message}`;
    }
    if (current !== instance) payloads.push(current);
    if (payloads.length === 0) return;
    const calls = payloads.map((_, index) => `pg_notify($1, $${index + 2})`).join(", ");
    try {
      await (listener ?? pool).query(`SELECT ${calls}`, [CHANNEL, ...payloads]);
    } catch (error) {
      logger.warn({ err: error }, "could not NOTIFY signals");
    }
  };

  // Tries again from 250 ms, doubling to 5 s, while the database is away (a restart, a failover).
  let retryMs = 250;
  let lost = false;
  const connect = async (): Promise<void> => {
    if (closed) return;
    let client: pg.PoolClient | undefined;
    try {
      client = await pool.connect();
      const own = client;
      own.on("notification", onNotification);
      own.on("error", (error) => {
        if (closed || listener !== own) return;
        logger.warn({ err: error }, "signal listener lost its connection; reconnecting");
        listener = undefined;
        lost = true;
        own.release(true);
        emitter.emit("gap");
        setTimeout(() => void connect(), retryMs);
      });
      await own.query(`LISTEN ${CHANNEL}`);
      listener = own;
      retryMs = 250;
      if (lost) {
        lost = false;
        logger.info("signal listener reconnected");
        // What was published while it was away was not heard: whoever relies on signals looks again,
        // now that the database answers.
        emitter.emit("gap");
      }
    } catch (error) {
      client?.release(true);
      logger.warn({ err: error, retryMs }, "could not LISTEN for signals; retrying");
      if (!closed) setTimeout(() => void connect(), retryMs);
      retryMs = Math.min(5_000, retryMs * 2);
    }
  };
  const ready = connect();

  return {
    publish(topic, payload = "", options) {
      // After close (work that outlived a stop): nobody here listens, and the pool may be gone.
      if (closed) return;
      if (!options?.remoteOnly) local(topic, payload);
      // A statement sent it to the others itself (notice below).
      if (options?.localOnly) return;
      queued.add(`${topic}\t${payload.replaceAll("\n", " ")}`);
      // One query at a time on the listener's connection; what is published meanwhile goes together.
      if (!sending) sent = sending = sent.then(send);
    },
    subscribe,
    onGap,
    notice: (topic) => ({ channel: CHANNEL, prefix: `${instance}\n${topic}\t` }),
    flushed: () => sent,
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
