// PGlite on a thread of its own (the main thread's side: pglite-thread.ts). PGlite runs PostgreSQL in
// WebAssembly on the thread that calls it: on the main thread every statement's work shares the event
// loop with requests and streams. Here it has this thread to itself, and the main thread sends
// statements by message. Plain JavaScript with no import but PGlite, so the same file serves tsx, the
// compiled platform and the Next.js app (which bundles nothing from it).
//
// Messages in: { id, op, ... }; out: { id, ok, value | error } and { notify, payload }. A transaction
// is PGlite's own (it holds the one connection): its statements carry its `tx` and run in order.
import { parentPort, workerData } from "node:worker_threads";
import { PGlite, messages } from "@electric-sql/pglite";

const { dataDir, loadDataDir, startParams, textTypes } = workerData;

/** An Error as plain data: postMessage keeps neither a DatabaseError's class nor its fields. */
function serializeError(error) {
  if (!(error instanceof Error)) return { name: "Error", message: String(error), fields: {} };
  const fields = {};
  for (const [key, value] of Object.entries(error)) {
    if (value === undefined || value === null || ["string", "number", "boolean"].includes(typeof value)) fields[key] = value;
  }
  return { name: error.name, message: error.message, stack: error.stack, fields, database: error instanceof messages.DatabaseError };
}

const reply = (id, promise) =>
  promise.then(
    (value) => parentPort.postMessage({ id, ok: true, value }),
    (error) => parentPort.postMessage({ id, ok: false, error: serializeError(error) }),
  );

const queryOptions = (options) => (options ? { rowMode: options.rowMode, paramTypes: options.paramTypes } : undefined);

let pglite;
try {
  pglite = await PGlite.create({ dataDir, loadDataDir: loadDataDir ? new Blob([loadDataDir]) : undefined, startParams });
} catch (error) {
  parentPort.postMessage({ ready: false, error: serializeError(error) });
  process.exit(0);
}

// The types the main thread parses (pglite-thread.ts, TEXT_TYPES) stay text here: set once on PGlite's
// own table, not passed with each query, which would cost PGlite a copy of that whole table per statement.
const asText = (text) => text;
for (const type of textTypes) pglite.parsers[type] = asText;

let nextTx = 0;
/** Open transactions: PGlite's handle, the chain their statements run in, and how they end. */
const transactions = new Map();
let nextListener = 0;
const listeners = new Map();

/** Runs `work` on the transaction's handle after its earlier statements. */
function inTransaction(txId, work) {
  const tx = transactions.get(txId);
  if (!tx?.handle) return Promise.reject(new Error("Transaction is closed"));
  const run = tx.chain.then(() => work(tx.handle));
  tx.chain = run.catch(() => {});
  return run;
}

function begin(id) {
  const txId = ++nextTx;
  const tx = { handle: undefined, chain: Promise.resolve(), finish: undefined, done: undefined };
  const finished = new Promise((resolve) => (tx.finish = resolve));
  tx.done = pglite
    .transaction(async (handle) => {
      tx.handle = handle;
      parentPort.postMessage({ id, ok: true, value: txId });
      // true: return (PGlite commits, unless rolled back already); false: throw (PGlite rolls back).
      if (!(await finished)) throw new RolledBack();
    })
    .finally(() => transactions.delete(txId));
  transactions.set(txId, tx);
  // A BEGIN that failed never reached the callback: the caller hears it as the begin's failure.
  tx.done.catch((error) => {
    if (!tx.handle) parentPort.postMessage({ id, ok: false, error: serializeError(error) });
  });
}

class RolledBack extends Error {}

parentPort.on("message", (message) => {
  const { id, op } = message;
  switch (op) {
    case "query": {
      const options = queryOptions(message.options);
      const work = (target) => target.query(message.sql, message.params, options);
      return reply(id, message.tx ? inTransaction(message.tx, work) : work(pglite));
    }
    case "exec": {
      const work = (target) => target.exec(message.sql);
      return reply(id, message.tx ? inTransaction(message.tx, work) : work(pglite));
    }
    case "begin":
      return begin(id);
    case "rollback":
      return reply(id, inTransaction(message.tx, (handle) => handle.rollback()));
    case "end": {
      const tx = transactions.get(message.tx);
      if (!tx) return reply(id, Promise.reject(new Error("Transaction is closed")));
      // After its statements: a rollback the adapter did not wait for has ended the transaction first.
      void tx.chain.then(() => tx.finish(message.commit));
      return reply(
        id,
        tx.done.then(
          () => undefined,
          (error) => {
            if (!(error instanceof RolledBack)) throw error;
          },
        ),
      );
    }
    case "listen": {
      const handle = ++nextListener;
      return reply(
        id,
        pglite.listen(message.channel, (payload) => parentPort.postMessage({ notify: handle, payload })).then((unlisten) => {
          listeners.set(handle, unlisten);
          return handle;
        }),
      );
    }
    case "unlisten": {
      const unlisten = listeners.get(message.handle);
      listeners.delete(message.handle);
      return reply(id, unlisten ? unlisten() : Promise.resolve());
    }
    case "dump":
      return reply(
        id,
        pglite.dumpDataDir(message.compression).then((file) => file.arrayBuffer()),
      );
    case "close":
      return reply(id, pglite.close());
    default:
      return reply(id, Promise.reject(new Error(`unknown PGlite thread operation ${op}`)));
  }
});

parentPort.postMessage({ ready: true });
