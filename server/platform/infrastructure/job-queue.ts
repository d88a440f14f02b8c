// The one durable queue for everything scheduled or retried (docs/scaling.md). pg-boss keeps the jobs
// in the app's database (PostgreSQL, or PGlite through pg-boss-db.ts); any process may enqueue, and
// only processes that work (roles worker and all) run handlers.
//
// A job enqueued with a key gets an id derived from (name, key): pg-boss inserts with ON CONFLICT DO
// NOTHING on its (name, id) primary key, so the same logical job enqueued twice, from any number of
// instances, is one row and runs once. pg-boss's singleton keys do not give that: each policy makes a
// key unique only within some states (queued, or active), so a second copy could run after the first.
//
// Schedules are rows of job_schedules (repositories/job-schedules.ts), not pg-boss's schedule table,
// which holds one schedule per queue name at minute granularity. Each slot of a schedule is a "fire"
// job keyed by the schedule's revision and the slot, waiting until the slot: whichever worker runs it
// enqueues the scheduled job (keyed by the slot, so it runs once) and the fire of the next slot.
import { createHash } from "node:crypto";
import PgBoss from "pg-boss";
import { logger } from "@/lib/logger";
import type { Database } from "@/server/shared/db";
import { deleteSchedule, findSchedule, listSchedules, saveSchedule, type ScheduleRow } from "../repositories/job-schedules";
import { checkSchedule, nextSlot, type ScheduleSpec } from "./schedule-slots";
import { jobDatabase } from "./pg-boss-db";

export interface RetryOptions {
  /** Retries after the first failure (default 2). */
  retryLimit?: number;
  /** Wait before a retry (default 0; at least 1 with backoff). */
  retryDelaySeconds?: number;
  /** Doubles the wait at each retry, with jitter. */
  retryBackoff?: boolean;
}

export interface RegisterOptions extends RetryOptions {
  /** Jobs of this name one process runs at once (default 1). */
  concurrency?: number;
  /** A run that takes longer fails (and is retried); default 15 minutes. */
  expireInSeconds?: number;
  /**
   * Run this handler here even in a process that does not work (role web): for jobs whose code only
   * such a process loads (the framework's, in a Next app that leaves the platform's work to workers).
   */
  everywhere?: boolean;
}

export interface EnqueueOptions extends RetryOptions {
  /** Idempotency: a second enqueue of (name, key) is dropped while pg-boss keeps the first. */
  key?: string;
  /** Not before this time. */
  startAfter?: Date;
}

export interface Job<T> {
  id: string;
  name: string;
  data: T;
}

export type JobHandler<T> = (job: Job<T>) => Promise<unknown>;

export type JobState = "created" | "retry" | "active" | "completed" | "cancelled" | "failed";

export interface JobInfo {
  id: string;
  name: string;
  state: JobState;
  data: unknown;
  retryCount: number;
  retryLimit: number;
  startAfter: Date;
  completedOn: Date | null;
  /** The handler's result, or for a failure the error ({ message, stack, ... }). */
  output: unknown;
}

export interface JobQueue {
  /** The handler for `name`; it runs only in a process that works. Call before or after start(). */
  register<T>(name: string, handler: JobHandler<T>, options?: RegisterOptions): Promise<void>;
  /** The job's id, or null when a job with the same key already exists. */
  enqueue<T extends object>(name: string, data: T, options?: EnqueueOptions): Promise<string | null>;
  /** Enqueues `name` with `data` at every slot of `spec`, once per slot whatever the instances. */
  schedule(name: string, key: string, spec: ScheduleSpec, data?: object): Promise<void>;
  unschedule(name: string, key: string): Promise<void>;
  /** Cancels a job not yet finished (a cancelled key stays taken until pg-boss archives the job). */
  cancel(name: string, id: string): Promise<void>;
  inspect(name: string, id: string): Promise<JobInfo | null>;
  start(): Promise<void>;
  /** Stops fetching, waits up to `stopTimeoutMs` for running handlers; those still running fail (and retry later). */
  stop(): Promise<void>;
}

export interface JobQueueOptions {
  database: Database;
  /** Runs handlers (roles worker and all); false only enqueues. */
  work: boolean;
  /** How often an idle worker looks for due jobs (default 2; at least 0.5). */
  pollingIntervalSeconds?: number;
  /** How long stop() waits for running handlers (default 10 s). */
  stopTimeoutMs?: number;
}

// The internal queue of schedule fires.
const FIRE = "schedule-fire";
// The advisory lock key of queue creation (any constant the app uses for nothing else).
const QUEUE_CREATION_LOCK = 7_301_885_002;
// How long pg-boss keeps a finished job before archiving it: a key stays taken that long.
const KEEP_FINISHED_SECONDS = 7 * 24 * 3600;
// Each pg-boss worker's own poll, a fallback: one look per process for due jobs of every queue it works
// (watchDueJobs) wakes the workers instead, so an idle process sends one statement a poll, not one
// per worker (there are some forty).
const WORKER_FALLBACK_POLL_SECONDS = 60;

interface FireData {
  name: string;
  key: string;
  revision: string;
  slot: string;
}

/** A UUID determined by (name, key), so pg-boss's primary key makes the key unique. */
export function jobIdForKey(name: string, key: string): string {
  const hex = createHash("sha256").update(`${name}\u0000${key}`).digest("hex");
  // Version 8 (custom) and the RFC 4122 variant, so it is a well-formed UUID.
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${((Number.parseInt(hex[16]!, 16) & 3) | 8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * Creates pg-boss's schema before pg-boss starts. Instances starting together each try: pg-boss
 * serializes them with an advisory lock, but the one that waited can still fail on `CREATE SCHEMA IF
 * NOT EXISTS` (its catalog cache predates the other's commit), and a failed PgBoss.start() cannot be
 * retried. A new attempt, in a new transaction, finds the schema there.
 */
async function installSchema(db: PgBoss.Db): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const { rows } = await db.executeSql("SELECT to_regclass('pgboss.version') IS NOT NULL AS installed", []);
    if ((rows[0] as { installed: boolean }).installed) return;
    try {
      await db.executeSql(PgBoss.getConstructionPlans(), []);
      return;
    } catch (error) {
      if (attempt >= 3) throw error;
    }
  }
}

/**
 * pg-boss's create_queue adds a partition to its job table: instances creating queues at once
 * deadlock on it. One at a time, then, under an advisory lock; nothing to do once the queue exists.
 */
async function createQueue(db: PgBoss.Db, name: string): Promise<void> {
  // Inlined below: a statement list (BEGIN ... COMMIT) takes no parameters.
  if (!/^[A-Za-z0-9_-]{1,50}$/.test(name)) throw new Error(`job name "${name}": use letters, digits, "_" and "-" (50 at most)`);
  const { rows } = await db.executeSql("SELECT 1 FROM pgboss.queue WHERE name = $1", [name]);
  if (rows.length > 0) return;
  await db.executeSql(
    `BEGIN;
     SELECT pg_advisory_xact_lock(${QUEUE_CREATION_LOCK});
     SELECT pgboss.create_queue('${name}', '{"policy":"standard"}');
     COMMIT;`,
    [],
  );
}

export interface FailedJob {
  id: string;
  name: string;
  data: unknown;
  retryCount: number;
  createdAt: Date;
  /** When its last attempt failed. */
  failedAt: Date | null;
  /** The last error's message (the handler's, or pg-boss's when the job expired). */
  error: string | null;
}

/**
 * Jobs that failed for good (every retry spent), newest first: the operator's view (npm run inlay --
 * jobs failed). pg-boss archives them after KEEP_FINISHED_SECONDS, so this reaches back that far. Read
 * without starting pg-boss; a database it never ran on has none.
 */
export async function listFailedJobs(database: Database, options: { name?: string; limit: number }): Promise<FailedJob[]> {
  const db = jobDatabase(database);
  const { rows: installed } = await db.executeSql("SELECT to_regclass('pgboss.job') IS NOT NULL AS installed", []);
  if (!(installed[0] as { installed: boolean }).installed) return [];
  const { rows } = await db.executeSql(
    `SELECT id::text AS id, name, data, retry_count AS "retryCount", created_on AS "createdAt", completed_on AS "failedAt", output
     FROM pgboss.job WHERE state = 'failed' AND ${UNFINISHED} AND ($1::text IS NULL OR name = $1)
     ORDER BY completed_on DESC NULLS LAST, id LIMIT $2`,
    [options.name ?? null, options.limit],
  );
  return (rows as (Omit<FailedJob, "error" | "createdAt" | "failedAt"> & { createdAt: Date | string; failedAt: Date | string | null; output: unknown })[]).map(
    ({ output, createdAt, failedAt, ...row }) => ({
      ...row,
      createdAt: new Date(createdAt),
      failedAt: failedAt === null ? null : new Date(failedAt),
      error: errorMessageOf(output),
    }),
  );
}

export interface QueueStats {
  name: string;
  state: JobState;
  count: number;
  /** For jobs due (created or retry, start_after passed): how long the oldest has waited, in seconds. */
  lagSeconds: number;
}

// Completed jobs are nearly all of pg-boss's table (kept KEEP_FINISHED_SECONDS, then archived): the
// metrics and the failed-jobs view read the rest through this partial index of ours, which every
// partition (one per queue) inherits, instead of scanning a week of jobs on every scrape.
const UNFINISHED_INDEX = "inlay_job_unfinished";
const UNFINISHED = "state <> 'completed'";

/** Creates the index once per database, under the lock queue creation takes (it adds partitions). */
async function createUnfinishedIndex(db: PgBoss.Db): Promise<void> {
  const { rows } = await db.executeSql(`SELECT to_regclass('pgboss.${UNFINISHED_INDEX}') IS NOT NULL AS present`, []);
  if ((rows[0] as { present: boolean }).present) return;
  await db.executeSql(
    `BEGIN;
     SELECT pg_advisory_xact_lock(${QUEUE_CREATION_LOCK});
     CREATE INDEX IF NOT EXISTS ${UNFINISHED_INDEX} ON pgboss.job (name, state, start_after) WHERE ${UNFINISHED};
     COMMIT;`,
    [],
  );
}

/** The metrics' read (exported for the test that holds it to the index). */
export const QUEUE_STATS_SQL = `SELECT name, state::text AS state, count(*)::int AS count,
    coalesce(extract(epoch FROM now() - min(start_after) FILTER (WHERE state < 'active' AND start_after <= now())), 0)::float8 AS "lagSeconds"
  FROM pgboss.job WHERE ${UNFINISHED} GROUP BY name, state`;

/**
 * Jobs per queue and state but completed, and how late the due ones are: the metrics' queue depth,
 * lag and failures. One grouped read of the unfinished jobs' index.
 */
export async function queueStats(database: Database): Promise<QueueStats[]> {
  const db = jobDatabase(database);
  const { rows: installed } = await db.executeSql("SELECT to_regclass('pgboss.job') IS NOT NULL AS installed", []);
  if (!(installed[0] as { installed: boolean }).installed) return [];
  const { rows } = await db.executeSql(QUEUE_STATS_SQL, []);
  return rows as QueueStats[];
}

function errorMessageOf(output: unknown): string | null {
  if (output === null || output === undefined) return null;
  if (typeof output === "object" && typeof (output as { message?: unknown }).message === "string") return (output as { message: string }).message;
  return typeof output === "string" ? output : JSON.stringify(output);
}

// pg-boss validates an option whenever its key is present, undefined or not.
const defined = <T extends object>(options: T): T =>
  Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as T;

export function createJobQueue(options: JobQueueOptions): JobQueue {
  const { database, work } = options;
  const prisma = database.prisma;
  // pg-boss's stop() waits only for jobs a worker already holds: a fetch on its way may still bring
  // one, whose handler and outcome would then reach a pool the process closes next. stop() also waits
  // for these (every statement of the queue's, and every handler) to settle.
  const pending = new Set<Promise<unknown>>();
  const track = <T>(settling: Promise<T>): Promise<T> => {
    pending.add(settling);
    settling.then(
      () => pending.delete(settling),
      () => pending.delete(settling),
    );
    return settling;
  };
  const driverDb = jobDatabase(database);
  const db: PgBoss.Db = { executeSql: (text, values) => track(driverDb.executeSql(text, values)) };
  const boss = new PgBoss({
    db,
    // Schedules are ours (see the header); pg-boss's clock and cron monitors would only poll.
    schedule: false,
    // Expiry, archiving and deletion: once per interval across the deployment (pg-boss takes a lock).
    supervise: work,
    maintenanceIntervalSeconds: 120,
    archiveCompletedAfterSeconds: KEEP_FINISHED_SECONDS,
    archiveFailedAfterSeconds: KEEP_FINISHED_SECONDS,
  });
  boss.on("error", (error) => logger.warn({ err: error }, "job queue error"));

  const handlers = new Map<string, { handler: JobHandler<unknown>; options: RegisterOptions }>();
  const workerIds = new Map<string, string[]>();
  // Which of a queue's workers run a job now, and where the next wake-up starts looking: a job sent
  // here wakes one idle worker, not all of them (each woken worker sends a fetch; all but one would
  // find nothing, and under a burst of sends those empty fetches were most of the queue's statements).
  const workerBusy = new Map<string, boolean[]>();
  const nextWake = new Map<string, number>();
  const wakeOne = (name: string) => {
    const ids = workerIds.get(name);
    const busy = workerBusy.get(name);
    if (!ids || !busy || ids.length === 0) return;
    const start = nextWake.get(name) ?? 0;
    let index = start;
    // The first idle worker from the rotation's place; if every one is busy, the next in turn fetches
    // again as soon as its job ends (pg-boss remembers a wake-up that came during a job).
    for (let step = 0; step < ids.length; step++) {
      if (!busy[(start + step) % ids.length]) {
        index = (start + step) % ids.length;
        break;
      }
    }
    nextWake.set(name, (index + 1) % ids.length);
    boss.notifyWorker(ids[index]!);
  };
  const queues = new Map<string, Promise<void>>();
  let started: Promise<void> | undefined;
  let stopped = false;
  const pollSeconds = options.pollingIntervalSeconds ?? 2;

  // One statement a poll for the whole process: the queues this process works that have a due job
  // (what pg-boss's fetch would take: not yet active, start_after passed) get their workers woken.
  let watcher: NodeJS.Timeout | undefined;
  let watching: Promise<void> | undefined;
  const watchDueJobs = async () => {
    const names = [...workerIds.keys()];
    try {
      if (names.length > 0) {
        const { rows } = await db.executeSql(
          "SELECT DISTINCT name FROM pgboss.job WHERE name = ANY($1::text[]) AND state < 'active' AND start_after < now()",
          [names],
        );
        for (const { name } of rows as { name: string }[]) {
          for (const workerId of workerIds.get(name) ?? []) boss.notifyWorker(workerId);
        }
      }
    } catch (error) {
      logger.warn({ err: error }, "looking for due jobs failed");
    }
    if (!stopped) {
      watcher = setTimeout(() => void (watching = watchDueJobs()), pollSeconds * 1000);
      watcher.unref();
    }
  };

  const ready = () => {
    if (!started) throw new Error("the job queue is not started");
    return started;
  };

  // pg-boss v10 inserts only into queues that exist.
  const ensureQueue = (name: string) => {
    let pending = queues.get(name);
    if (!pending) {
      pending = createQueue(db, name).catch((error: unknown) => {
        queues.delete(name);
        throw error;
      });
      queues.set(name, pending);
    }
    return pending;
  };

  const startWorkers = async (name: string) => {
    const entry = handlers.get(name);
    if (!entry || (!work && !entry.options.everywhere) || workerIds.has(name)) return;
    const { handler, options: registered } = entry;
    await ensureQueue(name);
    // The queue's defaults, for jobs enqueued without their own (by any instance).
    await boss.updateQueue(
      name,
      defined({
        name,
        retryLimit: registered.retryLimit,
        retryDelay: registered.retryDelaySeconds,
        retryBackoff: registered.retryBackoff,
        expireInSeconds: registered.expireInSeconds,
      }),
    );
    const ids: string[] = [];
    const busy: boolean[] = [];
    workerIds.set(name, ids);
    workerBusy.set(name, busy);
    const runOn = (worker: number) => ([job]: PgBoss.Job<unknown>[]) =>
      track(
        (async () => {
          busy[worker] = true;
          try {
            return await handler({ id: job!.id, name, data: job!.data });
          } catch (error) {
            logger.warn({ err: error, job: name, id: job!.id }, "job failed");
            throw error;
          } finally {
            busy[worker] = false;
          }
        })(),
      );
    // One worker per unit of concurrency, one job per fetch: each job completes or fails on its own.
    for (let i = 0; i < Math.max(1, registered.concurrency ?? 1); i++) {
      busy.push(false);
      ids.push(
        await boss.work(name, { batchSize: 1, pollingIntervalSeconds: Math.max(WORKER_FALLBACK_POLL_SECONDS, pollSeconds) }, runOn(i)),
      );
    }
  };

  // enqueue() without waiting for start(), for start() itself and the handlers.
  const send = async (name: string, data: object, enqueueOptions: EnqueueOptions = {}) => {
    await ensureQueue(name);
    const { key, startAfter } = enqueueOptions;
    const id = await boss.send(
      name,
      data,
      defined({
        id: key === undefined ? undefined : jobIdForKey(name, key),
        singletonKey: key,
        startAfter,
        retryLimit: enqueueOptions.retryLimit,
        retryDelay: enqueueOptions.retryDelaySeconds,
        retryBackoff: enqueueOptions.retryBackoff,
      }),
    );
    // A worker of this process takes a due job now rather than at its next poll.
    if (id && (!startAfter || startAfter.getTime() <= Date.now())) wakeOne(name);
    return id;
  };

  // The fire of the first slot after `after` (or after now, if later); a no-op when it exists.
  const enqueueFire = (schedule: ScheduleRow, after: Date) => {
    const slot = nextSlot(schedule, new Date(Math.max(after.getTime(), Date.now())));
    const data: FireData = { name: schedule.name, key: schedule.key, revision: schedule.revision, slot: slot.toISOString() };
    return send(FIRE, data, {
      // A revision belongs to one schedule, so it names the schedule.
      key: `${schedule.revision}@${data.slot}`,
      startAfter: slot,
      retryLimit: 10,
      retryDelaySeconds: 1,
      retryBackoff: true,
    });
  };

  const fire = async ({ data }: Job<FireData>) => {
    const schedule = await findSchedule(prisma, data.name, data.key);
    // Unscheduled, or redefined (the new revision has fires of its own).
    if (!schedule || schedule.revision !== data.revision) return;
    // A fire that runs late (no worker was up at its slot) runs once; the slots it missed are skipped.
    await send(data.name, (schedule.data ?? {}) as object, { key: `${data.key}@${data.slot}` });
    await enqueueFire(schedule, new Date(data.slot));
  };
  handlers.set(FIRE, { handler: fire as JobHandler<unknown>, options: { concurrency: 2, expireInSeconds: 60 } });

  return {
    async register(name, handler, registerOptions = {}) {
      if (handlers.has(name)) throw new Error(`a handler for job "${name}" is already registered`);
      handlers.set(name, { handler: handler as JobHandler<unknown>, options: registerOptions });
      if (started) {
        await started;
        await startWorkers(name);
      }
    },

    async enqueue(name, data, enqueueOptions) {
      await ready();
      return send(name, data, enqueueOptions);
    },

    async schedule(name, key, spec, data = {}) {
      checkSchedule(spec);
      await ready();
      const row = await saveSchedule(prisma, { name, key, cron: spec.cron, timezone: spec.timezone, data });
      await enqueueFire(row, new Date());
    },

    async unschedule(name, key) {
      // A fire already queued finds the row gone and does nothing.
      await deleteSchedule(prisma, name, key);
    },

    async cancel(name, id) {
      await ready();
      await boss.cancel(name, id);
    },

    async inspect(name, id) {
      await ready();
      const job = await boss.getJobById<unknown>(name, id, { includeArchive: true });
      if (!job) return null;
      return {
        id: job.id,
        name: job.name,
        state: job.state,
        data: job.data,
        retryCount: job.retryCount,
        retryLimit: job.retryLimit,
        startAfter: new Date(job.startAfter),
        completedOn: job.completedOn ? new Date(job.completedOn) : null,
        output: job.output,
      };
    },

    start() {
      if (stopped) return Promise.reject(new Error("the job queue was stopped"));
      started ??= (async () => {
        await installSchema(db);
        await boss.start();
        await createUnfinishedIndex(db);
        for (const name of handlers.keys()) await startWorkers(name);
        watching = watchDueJobs();
        // A schedule whose chain of fires broke (its fire failed for good, or was archived) resumes.
        if (!work) return;
        for (const schedule of await listSchedules(prisma)) {
          // One bad row (a cron an older version accepted) must not keep the queue from starting.
          await enqueueFire(schedule, new Date()).catch((error: unknown) =>
            logger.warn({ err: error, job: schedule.name, key: schedule.key }, "could not resume a schedule"),
          );
        }
      })();
      return started;
    },

    async stop() {
      if (stopped) return;
      stopped = true;
      clearTimeout(watcher);
      if (!started) return;
      await started.catch(() => {});
      await watching;
      const timeoutMs = options.stopTimeoutMs ?? 10_000;
      const deadline = Date.now() + timeoutMs;
      await boss.stop({ graceful: true, close: false, wait: true, timeout: timeoutMs });
      // What settles may start more (a fetch brings a job, a handler's end records its outcome): a turn
      // of the event loop between looks.
      while (Date.now() < deadline) {
        await new Promise((resolve) => setImmediate(resolve));
        if (pending.size === 0) break;
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([Promise.allSettled([...pending]), new Promise((resolve) => (timer = setTimeout(resolve, deadline - Date.now())))]);
        clearTimeout(timer);
      }
    },
  };
}
