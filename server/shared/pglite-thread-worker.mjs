// PGlite on a thread of its own (the main thread's side: pglite-thread.ts). PGlite runs PostgreSQL in
// WebAssembly on the thread that calls it: on the main thread every statement's work shares the event
// loop with requests and streams. Here it has this thread to itself, and the main thread sends
// statements by message. Plain JavaScript with no import but PGlite, so the same file serves tsx, the
// compiled platform and the Next.js app (which bundles nothing from it).
//
// Messages in: { id, op, ... }; out: { id, ok, value | error } and { notify, payload }. A transaction
// is PGlite's own (it holds the one connection): its statements carry its `tx` and run in order.
import { readFile } from "node:fs/promises";
import { Session } from "node:inspector";
import { parentPort, workerData } from "node:worker_threads";
import { PGlite, messages, parse, protocol } from "@electric-sql/pglite";

const { dataDir, loadDataDir, startParams, textTypes } = workerData;

// PGlite compiles its WebAssembly once per thread (9 MB, about 3 s of CPU with its tier-up): the first
// thread of a process compiles it here and hands the modules back with its ready message, and the
// main thread gives them to every later thread, which shares the compiled code (a test process opens
// many databases; a server opens one).
async function wasmModules() {
  if (workerData.wasmModules) return workerData.wasmModules;
  const compile = async (file) => WebAssembly.compile(await readFile(new URL(file, import.meta.resolve("@electric-sql/pglite"))));
  const [pgliteWasmModule, initdbWasmModule] = await Promise.all([compile("./pglite.wasm"), compile("./initdb.wasm")]);
  return { pgliteWasmModule, initdbWasmModule };
}

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
let modules;
try {
  modules = await wasmModules();
  pglite = await PGlite.create({ dataDir, loadDataDir: loadDataDir ? new Blob([loadDataDir]) : undefined, startParams, ...modules });
} catch (error) {
  parentPort.postMessage({ ready: false, error: serializeError(error) });
  process.exit(0);
}

// The types the main thread parses (pglite-thread.ts, TEXT_TYPES) stay text here: set once on PGlite's
// own table, not passed with each query, which would cost PGlite a copy of that whole table per statement.
const asText = (text) => text;
for (const type of textTypes) pglite.parsers[type] = asText;

// Statements are prepared once and then only bound and executed, in one call into PGlite instead of
// six (parse, describe, bind, describe, execute, sync): PostgreSQL parses and plans a statement once
// (custom plans first, then a generic one where it is as cheap, as for any prepared statement), and
// Prisma sends the same texts again and again. The most recently used STATEMENTS_MAX stay prepared.
const STATEMENTS_MAX = 250;
const { serialize } = protocol;
/** Statement text → { name, paramTypes, rowDescription }, least recently used first. */
const statements = new Map();
let nextStatement = 0;

const stream = (...parts) => {
  const bytes = new Uint8Array(parts.reduce((size, part) => size + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    bytes.set(part, offset);
    offset += part.length;
  }
  return pglite.execProtocolStream(bytes, { syncToFs: false });
};

async function preparedStatement(sql, paramTypes) {
  const known = statements.get(sql);
  if (known) {
    statements.delete(sql);
    statements.set(sql, known);
    return known;
  }
  if (statements.size >= STATEMENTS_MAX) {
    const [oldest, { name }] = statements.entries().next().value;
    statements.delete(oldest);
    await stream(serialize.close({ type: "S", name }), serialize.sync());
  }
  const name = `inlay_${++nextStatement}`;
  const described = await stream(serialize.parse({ name, text: sql, types: paramTypes }), serialize.describe({ type: "S", name }), serialize.sync());
  const statement = {
    name,
    paramTypes: described.find((message) => message.name === "parameterDescription")?.dataTypeIDs ?? [],
    rowDescription: described.find((message) => message.name === "rowDescription"),
  };
  statements.set(sql, statement);
  return statement;
}

/** A query as PGlite's query() runs it, through its prepared statement: call it holding PGlite's query lock. */
async function runPrepared(sql, params = [], options) {
  let statement = await preparedStatement(sql, options?.paramTypes);
  const values = params.map((value, index) => {
    if (value === null || value === undefined) return null;
    const serializer = pglite.serializers[statement.paramTypes[index]];
    return serializer ? serializer(value) : value.toString();
  });
  let results;
  try {
    results = await stream(serialize.bind({ statement: statement.name, values }), serialize.execute({}), serialize.sync());
  } catch (error) {
    // A table a statement reads changed shape since it was prepared (a migration): prepared again, once.
    if (!(error instanceof messages.DatabaseError && error.code === "0A000" && /cached plan/.test(error.message))) throw error;
    statements.delete(sql);
    await stream(serialize.close({ type: "S", name: statement.name }), serialize.sync());
    statement = await preparedStatement(sql, options?.paramTypes);
    results = await stream(serialize.bind({ statement: statement.name, values }), serialize.execute({}), serialize.sync());
  }
  const described = statement.rowDescription ? [statement.rowDescription, ...results] : results;
  return parse.parseResults(described, pglite.parsers, options ? { rowMode: options.rowMode } : undefined)[0];
}

/** PGlite's query(), prepared: outside a transaction it waits for any open one, as query() does. */
const preparedQuery = async (sql, params, options) => {
  const result = await pglite._runExclusiveTransaction(() => pglite._runExclusiveQuery(() => runPrepared(sql, params, options)));
  await pglite.syncToFs();
  return result;
};
/** The same inside PGlite's transaction, which holds the transaction lock already. */
const preparedQueryInTransaction = (sql, params, options) => pglite._runExclusiveQuery(() => runPrepared(sql, params, options));

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

// V8 runs a full collection on an idle main thread, but on Node 20 not on an idle worker: what PGlite's
// start and a burst of statements leave behind (array buffers, mostly) stayed resident, and `npm start`
// on PGlite idled at 834 MB instead of 385 (`npm run bench -- app-memory`). So once the thread quiets
// after work (fewer statements in a 5 s window than the job queue's polls alone send, after at least
// WORK_BEFORE_COLLECTING since the last collection), it asks for one itself, through its own inspector.
const QUIET_WINDOW_MS = 5_000;
const QUIET_MESSAGES = 10;
const WORK_BEFORE_COLLECTING = 100;
const collector = new Session();
collector.connect();
let windowMessages = 0;
let sinceCollected = 0;
setInterval(() => {
  if (windowMessages < QUIET_MESSAGES && sinceCollected >= WORK_BEFORE_COLLECTING) {
    sinceCollected = 0;
    collector.post("HeapProfiler.collectGarbage", () => {});
  }
  windowMessages = 0;
}, QUIET_WINDOW_MS).unref();

parentPort.on("message", (message) => {
  windowMessages++;
  sinceCollected++;
  const { id, op } = message;
  switch (op) {
    case "query": {
      const options = queryOptions(message.options);
      return reply(
        id,
        message.tx
          ? inTransaction(message.tx, () => preparedQueryInTransaction(message.sql, message.params, options))
          : preparedQuery(message.sql, message.params, options),
      );
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

parentPort.postMessage({ ready: true, wasmModules: workerData.wasmModules ? undefined : modules });
