// PGlite on a thread of its own (the thread: pglite-thread-worker.mjs). PGlite is PostgreSQL compiled to
// WebAssembly, run by whichever thread calls it: in the app's thread, every statement's work (about two
// thirds of a chat turn's CPU on the default install) shares the event loop with requests and streams.
// This is the part of PGlite the code uses (PgliteClient), sent to the thread by message, so a process
// on PGlite uses a second core as one on PostgreSQL does.
//
// What cannot cross threads stays here: the adapter's type parsers are functions, so the thread
// returns those types' columns as text (TEXT_TYPES) and they are parsed here, by the adapter's parsers
// or PGlite's own; errors come back as data and are rebuilt as PGlite's DatabaseError, which Prisma's
// adapter maps to its own errors.
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { PGlite, QueryOptions, Results, Transaction } from "@electric-sql/pglite";
import { logger } from "@/lib/logger";

/** What the code uses of PGlite: the instance itself, or its stand-in for a thread of its own. */
export type PgliteClient = Pick<PGlite, "query" | "exec" | "transaction" | "listen" | "close" | "dumpDataDir">;

export interface PgliteThreadOptions {
  dataDir: string;
  loadDataDir?: Blob;
  startParams: string[];
  /** Hears the thread end unasked (a crash): the database is gone, and the process should stop. */
  onExit(error: Error): void;
}

type Parser = (text: string, typeId?: number) => unknown;

/**
 * The types the thread leaves as text, each with its array type: those Prisma's PGlite adapter parses
 * itself (its `customParsers`). Set once on the thread's PGlite: passing parsers with every query made
 * PGlite copy its whole table of 318 parsers per statement (0.15 ms of a 0.4 ms SELECT).
 */
const TEXT_TYPES: ReadonlyArray<readonly [scalar: number, array: number]> = [
  [1700, 1231], // numeric
  [1083, 1183], // time
  [1266, 1270], // timetz
  [1082, 1182], // date
  [1114, 1115], // timestamp
  [1184, 1185], // timestamptz
  [790, 791], // money
  [114, 199], // json
  [3802, 3807], // jsonb
  [17, 1001], // bytea
  [1560, 1561], // bit
  [1562, 1563], // varbit
  [142, 143], // xml
  [20, 1016], // int8
];
const TEXT_TYPE_IDS = new Set(TEXT_TYPES.flat());
interface SerializedError {
  name: string;
  message: string;
  stack?: string;
  fields: Record<string, unknown>;
  database?: boolean;
}
/** PGlite's compiled WebAssembly, as PGlite.create takes it: compiled by a process's first thread, shared by the rest. */
interface WasmModules {
  pgliteWasmModule: WebAssembly.Module;
  initdbWasmModule: WebAssembly.Module;
}
let compiled: WasmModules | undefined;
/** The modules this process's later PGlite threads start from (undefined before the first thread is up). */
export const compiledPgliteWasm = (): WasmModules | undefined => compiled;

type FromThread =
  | { ready: true; wasmModules?: WasmModules }
  | { ready: false; error: SerializedError }
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; error: SerializedError }
  | { notify: number; payload: string };

/**
 * The thread's file: beside this module under tsx, else in the checkout the process runs from (the
 * compiled platform and the Next.js app, whose bundles are elsewhere; both run from the checkout's root).
 */
function threadFile(): string {
  const beside = path.join(path.dirname(fileURLToPath(import.meta.url)), "pglite-thread-worker.mjs");
  return existsSync(beside) ? beside : path.join(process.cwd(), "server", "shared", "pglite-thread-worker.mjs");
}

/** Starts the thread, opens PGlite on it, and resolves once it answers. */
export async function openPgliteThread(options: PgliteThreadOptions): Promise<PgliteClient> {
  const { messages, types } = await import("@electric-sql/pglite");
  const { DatabaseError } = messages;
  // What PGlite itself would have made of the text types, for callers that pass no parsers (pg-boss, migrations).
  const pgliteParsers: Record<number, Parser> = {};
  for (const [scalar, array] of TEXT_TYPES) {
    const parse = (types.parsers as Record<number, Parser | undefined>)[scalar];
    if (parse) pgliteParsers[scalar] = parse;
    pgliteParsers[array] = (text) => types.arrayParser(text, parse ?? ((element: string) => element), array);
  }
  const checked = new WeakSet<object>();
  const loadDataDir = options.loadDataDir ? await options.loadDataDir.arrayBuffer() : undefined;
  const worker = new Worker(threadFile(), {
    workerData: { dataDir: options.dataDir, loadDataDir, startParams: options.startParams, textTypes: [...TEXT_TYPE_IDS], wasmModules: compiled },
    transferList: loadDataDir ? [loadDataDir] : [],
  });
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: unknown): void }>();
  const notified = new Map<number, (payload: string) => void>();
  let nextId = 0;
  let closing = false;
  let ended: Error | undefined;

  const rebuild = (data: SerializedError): Error => {
    const error = data.database ? new DatabaseError(data.message, 0, "error") : new Error(data.message);
    if (!data.database && data.name === "RuntimeError") Object.setPrototypeOf(error, WebAssembly.RuntimeError.prototype);
    Object.assign(error, data.fields);
    if (data.stack) error.stack = data.stack;
    return error;
  };

  const ready = new Promise<void>((resolve, reject) => {
    worker.on("message", (message: FromThread) => {
      if ("ready" in message) {
        if (message.ready) {
          compiled ??= message.wasmModules;
          resolve();
        } else reject(rebuild(message.error));
      } else if ("notify" in message) notified.get(message.notify)?.(message.payload);
      else {
        const call = pending.get(message.id);
        pending.delete(message.id);
        if (message.ok) call?.resolve(message.value);
        else call?.reject(rebuild(message.error));
      }
    });
    worker.once("error", (error) => {
      logger.error({ err: error }, "the PGlite thread failed");
      reject(error);
    });
    worker.once("exit", (code) => {
      ended = new Error(`the PGlite thread ended (exit code ${code})`);
      for (const call of pending.values()) call.reject(ended);
      pending.clear();
      reject(ended);
      if (!closing) options.onExit(ended);
    });
  });
  try {
    await ready;
  } catch (error) {
    closing = true;
    await worker.terminate();
    throw error;
  }

  const call = <T>(message: Record<string, unknown>): Promise<T> => {
    if (ended) return Promise.reject(ended);
    const id = ++nextId;
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      worker.postMessage({ ...message, id });
    });
  };

  const query = async <T>(tx: number | undefined, sql: string, params?: unknown[], queryOptions?: QueryOptions): Promise<Results<T>> => {
    const parsers = queryOptions?.parsers as Record<number, Parser> | undefined;
    if (queryOptions?.serializers || queryOptions?.blob || queryOptions?.onNotice) {
      throw new Error("a PGlite thread takes no serializers, blob or onNotice in a query's options");
    }
    if (parsers && !checked.has(parsers)) {
      const parsedThere = Object.keys(parsers).filter((type) => !TEXT_TYPE_IDS.has(Number(type)));
      if (parsedThere.length > 0) throw new Error(`a PGlite thread parses types ${parsedThere.join(", ")} itself: add them to TEXT_TYPES`);
      checked.add(parsers);
    }
    const results = await call<Results<T>>({
      op: "query",
      tx,
      sql,
      params,
      options: queryOptions && { rowMode: queryOptions.rowMode, paramTypes: queryOptions.paramTypes },
    });
    parseColumns(results, parsers ?? pgliteParsers, pgliteParsers);
    return results;
  };
  const exec = async (tx: number | undefined, sql: string, execOptions?: QueryOptions) => {
    if (execOptions) throw new Error("a PGlite thread takes no options for exec");
    const results = await call<Results[]>({ op: "exec", tx, sql });
    for (const result of results) parseColumns(result, pgliteParsers, pgliteParsers);
    return results;
  };

  const client: PgliteClient = {
    query: (sql, params, queryOptions) => query(undefined, sql, params, queryOptions),
    exec: (sql, execOptions) => exec(undefined, sql, execOptions),
    async transaction<T>(callback: (tx: Transaction) => Promise<T>): Promise<T> {
      const txId = await call<number>({ op: "begin" });
      let closed = false;
      const open = () => {
        if (closed) throw new Error("Transaction is closed");
      };
      const tx: Transaction = {
        query: async (sql, params, queryOptions) => (open(), query(txId, sql, params, queryOptions)),
        exec: async (sql, execOptions) => (open(), exec(txId, sql, execOptions)),
        rollback: async () => {
          open();
          await call({ op: "rollback", tx: txId });
          closed = true;
        },
        sql: () => Promise.reject(new Error("a PGlite thread's transaction takes query(), not sql``")),
        listen: () => Promise.reject(new Error("a PGlite thread's transaction cannot listen")),
        get closed() {
          return closed;
        },
      };
      let result: T;
      try {
        result = await callback(tx);
      } catch (error) {
        closed = true;
        await call({ op: "end", tx: txId, commit: false }).catch(() => {});
        throw error;
      }
      closed = true;
      await call({ op: "end", tx: txId, commit: true });
      return result;
    },
    async listen(channel, callback) {
      const handle = await call<number>({ op: "listen", channel });
      notified.set(handle, callback);
      return async () => {
        notified.delete(handle);
        await call({ op: "unlisten", handle });
      };
    },
    async dumpDataDir(compression) {
      return new Blob([await call<ArrayBuffer>({ op: "dump", compression })]);
    },
    async close() {
      closing = true;
      try {
        if (!ended) await call({ op: "close" });
      } finally {
        await worker.terminate();
      }
    },
  };
  return client;
}

/** Parses, here, the columns the thread left as text (TEXT_TYPES): by the caller's parser, else PGlite's. */
function parseColumns(results: Results<unknown>, parsers: Record<number, Parser>, pgliteParsers: Record<number, Parser>) {
  const columns = results.fields.flatMap((field, index) => {
    if (!TEXT_TYPE_IDS.has(field.dataTypeID)) return [];
    const parser = parsers[field.dataTypeID] ?? pgliteParsers[field.dataTypeID];
    return parser ? [{ index, name: field.name, typeId: field.dataTypeID, parser }] : [];
  });
  if (columns.length === 0) return;
  for (const row of results.rows as Array<Record<string | number, unknown>>) {
    for (const column of columns) {
      const key = Array.isArray(row) ? column.index : column.name;
      const value = row[key];
      if (typeof value === "string") row[key] = column.parser(value, column.typeId);
    }
  }
}
