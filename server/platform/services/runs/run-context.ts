// What the run services need from the process: the database, this process's caches and event log, and
// how a ready run gets executed. Built once per process (server/platform/deps.ts).
import type { Db } from "../../repositories/db";
import type { AgentRow } from "../../repositories/agents";
import type { PassReads } from "../../repositories/run-leases";
import type { RunRow } from "../../repositories/runs";
import type { WakeUp } from "../../repositories/run-events";
import type { HotCache } from "../../infrastructure/hot-cache";
import type { RunEventBus } from "../../infrastructure/event-bus";
import type { RunEventWriter } from "../../infrastructure/event-writer";
import type { LiveContent } from "../../infrastructure/live-content";
import type { PlatformConfig } from "../../platform-config";

/** A run and its agent as just read or inserted: a pass that has them need not read them again. */
export interface KnownRun {
  run: RunRow;
  agent: AgentRow;
  /** The statement that inserted it also woke the other instances' workers (`runReady`). */
  othersWoken?: boolean;
  /** What its pass reads before the model, read by the statement that inserted it with this process's lease. */
  reads?: PassReads;
}

export interface RunServiceContext {
  prisma: Db;
  /** Keys, end-users and agents as last read (infrastructure/hot-cache.ts). */
  cache: HotCache;
  config: PlatformConfig;
  bus: RunEventBus;
  /** Appends run frames (every run's of this process together). */
  events: RunEventWriter;
  /** Content of metadata_only runs, held by this process only. */
  live: LiveContent;
  /**
   * A run is ready to execute (new, or let go on after a pause). One inserted with this process's
   * worker's lease (`lease` below; `known` spares reading it again) executes here; any other waits to
   * be claimed by a worker.
   */
  startRun(runId: number, known?: KnownRun): void;
  /** This process's worker's lease while it has room (role all), given to a run at insert: no claim needed. */
  lease?: { owner: string; ms: number };
  /** The run-ready NOTIFY a statement that inserts a run can send itself (PostgreSQL; none on PGlite). */
  runReady?: WakeUp;
}
