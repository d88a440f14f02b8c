// What every platform handler can reach: its dependencies and the per-request variables set by
// middleware. Kept apart from app.ts so route files can import the types without a cycle.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { Db } from "./repositories/db";
import type { WakeUp } from "./repositories/run-events";
import type { Database } from "@/server/shared/db";
import type { RateLimiterAbstract } from "rate-limiter-flexible";
import type { AuthContext } from "./services/account/auth";
import type { IdempotentCall } from "./services/idempotency";
import type { RunEventBus } from "./infrastructure/event-bus";
import type { RunFollowers } from "./infrastructure/run-followers";
import type { RunEventWriter } from "./infrastructure/event-writer";
import type { KnownRun } from "./services/runs/run-context";
import type { RunWorker } from "./runtime/run-worker";
import type { LiveContent } from "./infrastructure/live-content";
import type { HotCache } from "./infrastructure/hot-cache";
import type { Signals } from "./infrastructure/signals";
import type { JobQueue } from "./infrastructure/job-queue";
import type { Mailer } from "./services/messaging/mailer";
import type { PlatformConfig } from "./platform-config";
import type { ScriptSandbox } from "./tool-servers/script-sandbox";
import type { RuntimeModel } from "./models/providers";


/** The request limiters (middleware/rate-limit.ts builds them): in this process's memory or in Redis. */
export interface Limiters {
  account: RateLimiterAbstract;
  ip: RateLimiterAbstract;
  signup: RateLimiterAbstract;
  login: RateLimiterAbstract;
  close(): Promise<void>;
}

/** What executes runs in this process: the event log's writer, the wake-up bus over it and the executor. */
export interface PlatformRuntime {
  bus: RunEventBus;
  /** The readers of run logs (the SSE streams): one read per run for all of them (infrastructure/run-followers.ts). */
  followers: RunFollowers;
  /** Hints between the instances of a deployment (infrastructure/signals.ts). */
  signals: Signals;
  /** Keys, end-users and agents as last read, dropped on every instance when written (infrastructure/hot-cache.ts). */
  cache: HotCache;
  /** Appends run frames, every run's together (infrastructure/event-writer.ts). */
  events: RunEventWriter;
  /** This process's worker (roles worker and all); none in a web process. */
  worker?: RunWorker;
  /** Hands a run that is ready to execute to its worker: this process's when leased to it, else any. */
  startRun(runId: number, known?: KnownRun): void;
  /** The lease a run inserted now gets so this process executes it at once (role all, with room). */
  localLease(): { owner: string; ms: number } | undefined;
  /** The run-ready NOTIFY a statement inserting a run can send itself (Signals.notice; none on PGlite). */
  runReady: WakeUp | undefined;
  /** What metadata_only runs say, held by this process only (infrastructure/live-content.ts). */
  live: LiveContent;
  /** The durable queue for everything scheduled or retried (infrastructure/job-queue.ts). */
  jobs: JobQueue;
  /** RunTimings.keepAliveMs, for the run streams (routes/runs/stream.ts). */
  keepAliveMs: number;
  /** The inbound SMTP server of agent inboxes, when this process runs one (inbound/smtp-server.ts). */
  smtp?: { port: number };
  /** The script tool servers' sandbox, started on first use (approvals and calls of scripts). */
  scriptSandbox(): ScriptSandbox;
  /** Aborted once the process drains: its open run streams end (clients resume elsewhere, Last-Event-ID). */
  readonly draining: AbortSignal;
  /**
   * Starts draining (docs/design.md, Operations): open run streams end, the worker claims no more and hands
   * its runs back, waiting up to `waitMs` for the passes that must reach a checkpoint first (default
   * 30 s). Requests in flight are the HTTP server's to finish (standalone.ts).
   */
  drain(waitMs?: number): void;
  /** Drains, waits for the worker's runs to be handed back, then stops the queue and closes the bus. */
  close(): Promise<void>;
}

/** What a process does: serve HTTP, execute runs and jobs, or both (docs/design.md, Roles). */
export type PlatformRole = "web" | "worker" | "all";

export interface PlatformDeps {
  /** The database, opened (and migrated) on first use. */
  database: () => Promise<Database>;
  /** Built once, on first use, over the database. */
  runtime: () => Promise<PlatformRuntime>;
  /** Stops the runtime (waiting for runs in progress) and the limiters; the database stays open. */
  close(): Promise<void>;
  config: PlatformConfig;
  limiters: Limiters;
  mailer: Mailer;
  /** The model for a catalogue id (sim or a configured provider): judgments call it from the web role. */
  languageModel: (modelId: string) => RuntimeModel;
}

export interface PlatformEnv {
  Variables: {
    requestId: string;
    deps: PlatformDeps;
    prisma: Db;
    /** Set when the request presented a valid key; null for an invalid one; undefined for none. */
    auth: AuthContext | null | undefined;
    runtime: PlatformRuntime;
    /** Set by the idempotency middleware when the request sent an Idempotency-Key. */
    idempotency: IdempotentCall | undefined;
  };
}

export type PlatformApp = OpenAPIHono<PlatformEnv>;
export type PlatformContext = Context<PlatformEnv>;

/**
 * app.fetch's bindings for a caller in this process (the embedded framework): no HTTP client can send
 * them, so a route may trust such a caller as it trusts its own code (inProcessCaller).
 */
export const IN_PROCESS_BINDINGS = Object.freeze({ inlayInProcess: true as const });

/** Whether the request came through IN_PROCESS_BINDINGS rather than over HTTP. */
export const inProcessCaller = (c: PlatformContext): boolean =>
  (c.env as { inlayInProcess?: unknown } | undefined)?.inlayInProcess === true;

/** Where the platform is mounted, in Next.js and in the standalone server alike. */
export const PLATFORM_BASE_PATH = "/api/v2";
