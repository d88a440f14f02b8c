// The worker loop: claims runs from the database, holds a lease on each while one pass of it executes
// (run-pass.ts), and drains when told to stop. A worker wakes up when a run becomes ready (RUN_READY,
// from any instance), when one of its runs ends, and every `pollMs`, which is also how it finds the
// runs of a worker that died: their leases stop being renewed (one statement per worker renews all of
// its leases every third of a lease) and lapse. A worker that stops hands its runs back instead
// (docs/design.md, Operations): their leases lapse at once and another worker resumes them.
import { randomBytes } from "node:crypto";
import { withLogContext } from "@/lib/log-context";
import { logger } from "@/lib/logger";
import { claimRuns, renewLeases } from "../repositories/run-leases";
import { type RunRow } from "../repositories/runs";
import { claimLatency, runsClaimed } from "../observability/metrics";
import { contextFromTraceparent, inSpan, type Span, SpanKind } from "../observability/tracing";
import { runTimings } from "./recovery";
import { executePass, HAND_BACK, type PassControl, RUN_READY } from "./run-pass";
import type { ExecutorDeps, KnownReads } from "./agent-loop";
import { PROMPT_MEMORY_LIMIT } from "../services/runs/system-prompt";
import type { KnownRun } from "../services/runs/run-context";
import type { RunRetention } from "../repositories/run-leases";

export interface RunWorker {
  /** This worker's lease owner and length; a run inserted with it is this worker's to execute (runLeased). */
  readonly lease: { owner: string; ms: number };
  /** Whether it executes fewer runs than its concurrency allows. */
  hasRoom(): boolean;
  /** Told to stop: it claims no more runs. */
  readonly stopped: boolean;
  /** Executes a run that was inserted already leased to this worker (no claim needed). */
  runLeased(known: KnownRun): void;
  /** Claims what waits, up to its free places, now; resolves with the ids it claimed. */
  claim(): Promise<number[]>;
  /** Resolves when no run executes here any more (tests, shutdown). */
  idle(): Promise<void>;
  /**
   * Drains: claims no more, hands every run executing here back (each at its next safe point, see
   * PassControl.handBack), waits up to `waitMs` for their passes to end, then stops renewing leases:
   * a pass still running by then (a tool with side effects that does not end) loses its run when its
   * lease lapses, as a dead worker's would.
   */
  stop(waitMs?: number): Promise<void>;
}

export interface WorkerOptions {
  /** Runs executed at once at most; past it, runs wait in the database for this or another worker. */
  concurrency: number;
  /** Look for claimable runs on this period too (leases that lapsed, wake-ups that were lost); 0: never. */
  pollMs: number;
  /** The lease owner, when the process's other thread holds runs under it too (runtime/worker-thread.ts). */
  owner?: string;
  /** Claims only runs of this retention (role all with a worker thread: each thread its own kind). */
  claims?: RunRetention;
  /** Hears hasRoom() change (the worker thread tells the main thread). */
  onRoomChange?: (room: boolean) => void;
}

/** One run executing on a worker. */
interface Execution {
  control: PassControl;
  done: Promise<void>;
}

/** A lease owner for this process's worker: unique across the processes of a deployment. */
export const processLeaseOwner = () => `worker_${process.pid}_${randomBytes(4).toString("hex")}`;

export function createRunWorker(deps: ExecutorDeps, options: WorkerOptions): RunWorker {
  const owner = options.owner ?? processLeaseOwner();
  const { leaseMs, graceMs } = runTimings(deps.config);
  const active = new Map<number, Execution>();
  let stopped = false;
  let claiming: Promise<number[]> | undefined;
  let claimAgain = false;
  // Runs may wait that this worker had no place for (a wake-up while it was full, or a claim that
  // filled every place): a place that frees looks for them. Otherwise nothing waits that a wake-up or
  // the poll would not bring, and a run's end costs no claim that finds nothing.
  let mayWait = false;
  let hadRoom = true;
  const roomChanged = () => {
    const room = !stopped && active.size < options.concurrency;
    if (room !== hadRoom) options.onRoomChange?.((hadRoom = room));
  };

  const launch = (run: RunRow, abandoned: boolean, known: KnownReads, leasedAtAdmission = false) => {
    runsClaimed.inc({ how: abandoned ? "resumed" : leasedAtAdmission ? "leased_at_admission" : "claimed" });
    // A run's first pass: from its admission (a reply's or an approval's pass starts later on).
    if (!abandoned && run.turnsUsed === 0) claimLatency.observe((Date.now() - run.createdAt.getTime()) / 1000);
    const abort = new AbortController();
    // executePass replaces handBack before its first await.
    const control: PassControl = { abort, handBack: () => abort.abort(HAND_BACK) };
    const execution: Execution = { control, done: Promise.resolve() };
    active.set(run.id, execution);
    roomChanged();
    // One span per pass, in the trace of the request that admitted the run (observability/tracing.ts).
    // Every line the pass logs names its run and account, and its trace while tracing: no request
    // id (a worker serves none), but the trace id the admitting request's lines carry too.
    const pass = (span: Span | undefined) =>
      withLogContext({ runId: run.id, accountId: run.accountId, ...(span ? { traceId: span.spanContext().traceId } : {}) }, async () => {
        const started = Date.now();
        try {
          await executePass(deps, owner, run, control, abandoned, known);
        } finally {
          logger.info({ ms: Date.now() - started, resumed: abandoned, handedBack: control.abort.signal.reason === HAND_BACK }, "run pass ended");
        }
      });
    const attributes = { "inlay.run.id": run.id, "inlay.account.id": run.accountId, "inlay.run.resumed": abandoned };
    execution.done = inSpan("run.pass", { kind: SpanKind.CONSUMER, parent: contextFromTraceparent(run.traceContext), attributes }, pass)
      .catch((error: unknown) => logger.error({ err: error, runId: run.id }, "run executor crashed"))
      .finally(() => {
        active.delete(run.id);
        roomChanged();
        // A place is free: whatever waited for one can have it.
        if (mayWait) void claim();
      });
    // Leased to this worker while it was being told to stop (runLeased): handed back at once.
    if (stopped) control.handBack();
  };

  const claimWhileRoom = async (): Promise<number[]> => {
    const ids: number[] = [];
    try {
      do {
        claimAgain = false;
        while (!stopped && active.size < options.concurrency) {
          const limit = options.concurrency - active.size;
          const runs = await claimRuns(deps.prisma, owner, { limit, leaseMs, graceMs, memories: PROMPT_MEMORY_LIMIT, retention: options.claims });
          for (const claimed of runs) {
            ids.push(claimed.run.id);
            // The claim read the run's agent and what the pass reads before the model: not read again.
            launch(claimed.run, claimed.abandoned, { agent: claimed.agent, reads: claimed.reads });
          }
          mayWait = runs.length === limit;
          if (runs.length < limit) break;
        }
        if (!stopped && active.size >= options.concurrency) mayWait = true;
      } while (claimAgain && !stopped);
    } catch (error) {
      mayWait = true;
      logger.warn({ err: error }, "claiming runs failed");
    }
    return ids;
  };
  // One claim at a time; a wake-up during it makes it look once more before it ends.
  const claim = (): Promise<number[]> => {
    if (claiming) {
      claimAgain = true;
      return claiming;
    }
    const current = claimWhileRoom().finally(() => {
      if (claiming === current) claiming = undefined;
    });
    claiming = current;
    return current;
  };

  // One statement renews every lease this worker holds; a run it no longer holds (another worker
  // took it over after this one stalled past its lease) stops here, so two never execute it at once.
  const renew = async () => {
    const ids = [...active.keys()];
    if (ids.length === 0) return;
    try {
      const lost = await renewLeases(deps.leases ?? deps.prisma, owner, ids, leaseMs);
      for (const id of lost) {
        logger.warn({ runId: id }, "another worker took over a run: stopping it here");
        active.get(id)?.control.abort.abort();
      }
    } catch (error) {
      logger.warn({ err: error }, "renewing leases failed");
    }
  };
  const heartbeat = setInterval(() => void renew(), Math.max(100, Math.floor(leaseMs / 3)));
  heartbeat.unref();
  const poll = options.pollMs > 0 ? setInterval(() => void claim(), options.pollMs) : undefined;
  poll?.unref();
  const unsubscribe = deps.signals.subscribe(RUN_READY, () => void claim());
  const unsubscribeGap = deps.signals.onGap(() => void claim());

  const idle = async () => {
    while (active.size > 0 || claiming) {
      await claiming;
      await Promise.all([...active.values()].map((execution) => execution.done));
    }
  };
  return {
    lease: { owner, ms: leaseMs },
    hasRoom: () => !stopped && active.size < options.concurrency,
    get stopped() {
      return stopped;
    },
    runLeased(known) {
      if (active.has(known.run.id)) return;
      launch(known.run, false, { agent: known.agent, ...(known.reads ? { reads: known.reads } : {}) }, true);
    },
    claim,
    idle,
    async stop(waitMs = 30_000) {
      if (!stopped) {
        stopped = true;
        clearInterval(poll);
        unsubscribe();
        unsubscribeGap();
        // A claim under way finishes first: what it claims is handed back with the rest.
        await claiming;
        const handing = active.size;
        for (const execution of active.values()) execution.control.handBack();
        if (handing > 0) logger.info({ runs: handing }, "worker stopping: handing its runs back");
      }
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([idle(), new Promise((resolve) => (timer = setTimeout(resolve, waitMs)))]);
      clearTimeout(timer);
      clearInterval(heartbeat);
    },
  };
}
