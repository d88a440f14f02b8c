// Role all on PostgreSQL executes its runs on a thread of its own (docs/design.md, Roles): requests,
// streams, jobs and metadata_only runs keep the main thread; the standard runs this process leases
// go to the thread by message, so one process uses a second core as 1 web + 1 worker would. The two
// threads share one lease owner: a run inserted with the process's lease is executed by one of them,
// chosen by its retention (a metadata_only run's conversation is the main thread's memory), and each
// claims only its own kind. PGlite lives in one thread's memory, so it never gets one.
//
// The main thread: startWorkerThread(); the thread's entry (server/platform/worker-thread-entry.ts)
// builds role worker's dependencies with `thread` from workerThreadData() and calls serveWorkerThread().
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";
import { currentLogContext, withLogContext, type LogContext } from "@/lib/log-context";
import { logger } from "@/lib/logger";
import { addRemoteMetrics, metricsJson, type RemoteMetrics } from "@/server/shared/metrics-registry";
import { processLeaseOwner, type RunWorker } from "./run-worker";
import type { KnownRun } from "../services/runs/run-context";
import type { DemoAppSettings } from "../platform-config";

/**
 * Whether a process runs its standard runs on a worker thread: role all, on PostgreSQL, unless
 * INLAY_WORKER_THREAD=0 (`enabled`). Every entry point that can start one decides by this.
 */
export const wantsWorkerThread = (role: string, databaseUrl: string | undefined, enabled: boolean): databaseUrl is string =>
  role === "all" && Boolean(databaseUrl) && enabled;

/** What the thread is told when it starts. */
export interface WorkerThreadData {
  kind: "inlay-worker-thread";
  /** The process's lease owner: the thread's worker holds runs under it too. */
  owner: string;
  /** The platform's base URL as the main thread serves it (links the runs' webhooks carry). */
  localBaseUrl: string;
  /** The PostgreSQL database the main thread opened. */
  databaseUrl: string;
  /** The embedding framework's demo app, when its runs may call it (PlatformConfig.apps.demo). */
  demoApp?: DemoAppSettings;
}

type ToThread = { type: "run"; known: KnownRun; log?: LogContext } | { type: "drain"; waitMs?: number } | { type: "close" } | { type: "metrics"; id: number };
type FromThread = { type: "ready" } | { type: "room"; room: boolean } | { type: "metrics"; id: number; metrics: Metric[] } | { type: "closed" };

export interface WorkerThread {
  /** The lease owner both threads hold runs under. */
  readonly owner: string;
  /** Whether the thread's worker executes fewer runs than its concurrency allows (as it last said). */
  hasRoom(): boolean;
  /** Executes on the thread a run inserted with the process's lease. */
  runLeased(known: KnownRun): void;
  /** Starts the thread's drain: it claims no more and hands its runs back (RunWorker.stop). */
  drain(waitMs?: number): void;
  /** Drains, waits for the thread's runtime to close, and for the thread to end. */
  close(): Promise<void>;
}

// Process metrics (CPU, memory, event loop) are the main thread's to report, and the queue's gauges
// read the same database from either: only what the thread itself counts is added to a scrape.
type Metric = Awaited<ReturnType<RemoteMetrics>>[number];
const MAIN_ONLY = /^inlay_(process_|nodejs_|queue_)/;

/**
 * The file the thread runs: the compiled entry beside this bundle (dist/platform/), or the TypeScript
 * source under tsx. The Next.js app's bundles are elsewhere: it names the compiled entry itself.
 */
function entryBesideThis(): URL {
  const here = import.meta.url;
  // A name, not a literal: bundlers (Next's webpack) would take a literal for a file to bundle.
  const file = here.endsWith(".ts") ? "../worker-thread-entry.ts" : "./worker-thread.js";
  return new URL(file, here);
}

/**
 * Starts the thread and resolves once its runtime is up. `onExit` hears an end nobody asked for (the
 * thread crashed): the process cannot execute its standard runs any more and should stop.
 */
export async function startWorkerThread(
  options: Omit<WorkerThreadData, "kind" | "owner"> & { entry?: URL; onExit: (error: unknown) => void },
): Promise<WorkerThread> {
  const { entry = entryBesideThis(), onExit, ...given } = options;
  const data: WorkerThreadData = { kind: "inlay-worker-thread", owner: processLeaseOwner(), ...given };
  // Under tsx (development, tests) the thread registers its TypeScript loader first: Node 20 does not
  // carry the main thread's loader into a worker. It resolves tsx from the working directory, the
  // checkout's root, as the platform's processes run.
  const worker = entry.pathname.endsWith(".ts")
    ? new Worker(
        `import("tsx/esm/api").then(({ register }) => { register(); return import(${JSON.stringify(entry.href)}); });`,
        { eval: true, workerData: data },
      )
    : new Worker(entry, { workerData: data });
  let room = true;
  let closing = false;
  let nextId = 0;
  const answers = new Map<number, (metrics: Metric[]) => void>();
  let closed: () => void = () => {};
  const whenClosed = new Promise<void>((resolve) => (closed = resolve));
  const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  let started = false;
  const ready = new Promise<void>((resolve, reject) => {
    worker.on("message", (message: FromThread) => {
      if (message.type === "ready") {
        started = true;
        resolve();
      } else if (message.type === "room") room = message.room;
      else if (message.type === "metrics") answers.get(message.id)?.(message.metrics);
      else if (message.type === "closed") closed();
    });
    worker.once("error", (error) => {
      logger.error({ err: error }, "the worker thread failed");
      reject(error);
    });
    worker.once("exit", (code) => {
      for (const answer of answers.values()) answer([]);
      answers.clear();
      if (closing) return;
      const error = new Error(`the worker thread ended (exit code ${code})`);
      // Before it was ready the start itself fails; after, the owner hears it.
      if (started) onExit(error);
      else reject(error);
    });
  });
  const send = (message: ToThread) => worker.postMessage(message);
  await ready;
  const removeMetrics = addRemoteMetrics(
    () =>
      new Promise<Metric[]>((resolve) => {
        const id = nextId++;
        answers.set(id, (metrics) => {
          answers.delete(id);
          resolve(metrics);
        });
        send({ type: "metrics", id });
      }),
  );
  return {
    owner: data.owner,
    hasRoom: () => room && !closing,
    // The admitting request's log context goes along: the pass's lines name its request, as on one thread.
    runLeased: (known) => send({ type: "run", known, log: currentLogContext() }),
    drain: (waitMs) => send({ type: "drain", waitMs }),
    async close() {
      if (closing) return exited;
      closing = true;
      removeMetrics();
      send({ type: "close" });
      await Promise.race([whenClosed, exited]);
      await worker.terminate();
    },
  };
}

/** The thread's start data, in the thread startWorkerThread started; undefined anywhere else. */
export function workerThreadData(): WorkerThreadData | undefined {
  if (isMainThread) return undefined;
  const data = workerData as Partial<WorkerThreadData> | null;
  return data?.kind === "inlay-worker-thread" ? (data as WorkerThreadData) : undefined;
}

/** What the thread's side needs of its PlatformDeps (server/platform/deps.ts). */
interface ThreadDeps {
  runtime(): Promise<{ worker?: RunWorker; drain(waitMs?: number): void }>;
  close(): Promise<void>;
}

/**
 * The thread's side: answers the main thread's messages with `deps` (role worker, `thread` set), once
 * its runtime is up. `stop` runs after the runtime closed (the database's pool, the tracer).
 */
export async function serveWorkerThread(deps: ThreadDeps, stop: () => Promise<void>): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error("serveWorkerThread runs in a worker thread");
  const runtime = await deps.runtime();
  const worker = runtime.worker;
  if (!worker) throw new Error("the worker thread's runtime has no worker");
  port.on("message", (message: ToThread) => {
    if (message.type === "run") withLogContext(message.log ?? {}, () => worker.runLeased(message.known));
    else if (message.type === "drain") runtime.drain(message.waitMs);
    else if (message.type === "metrics") {
      void metricsJson().then(
        (metrics) => port.postMessage({ type: "metrics", id: message.id, metrics: metrics.filter((metric) => !MAIN_ONLY.test(metric.name)) } satisfies FromThread),
        () => port.postMessage({ type: "metrics", id: message.id, metrics: [] } satisfies FromThread),
      );
    } else if (message.type === "close") {
      void deps
        .close()
        .then(stop)
        .catch((error: unknown) => logger.error({ err: error }, "closing the worker thread failed"))
        .finally(() => {
          port.postMessage({ type: "closed" } satisfies FromThread);
          port.close();
        });
    }
  });
  port.postMessage({ type: "ready" } satisfies FromThread);
}

/** The room signal the thread's worker sends when it fills or frees (RunWorker's onRoomChange). */
export function reportRoom(room: boolean): void {
  parentPort?.postMessage({ type: "room", room } satisfies FromThread);
}
