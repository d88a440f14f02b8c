// Schedule triggers fire from durable jobs (docs/platform-api.md, "Task triggers"):
//
//   fire    one job per (trigger, revision, due time), waiting until the due time. It starts the task's
//           run for each due time its missed_runs policy keeps (one, when on time), records every due
//           time as a fire (unique per trigger and due time: never two runs for one due time, whatever
//           the instances), moves next_run_at on and enqueues the next fire. A trigger edited since
//           (another revision), disabled or deleted makes a queued fire do nothing.
//   sweep   every minute: re-enqueues the fire of an enabled trigger whose due time passed with no job
//           (a process killed between moving next_run_at and enqueueing).
//
// A fire is at most once per due time: the claim (the fire row) commits before the run starts, so a
// process killed between the two leaves the fire "starting" with no run rather than risk a second.
import { logger } from "@/lib/logger";
import { MAX_CATCH_UP_RUNS } from "@inlay/core/schemas/triggers";
import type { Db } from "../../repositories/db";
import { PlatformError } from "../../errors";
import {
  advanceTrigger,
  claimFire,
  findOverdueTriggers,
  findTriggerForFire,
  recordSkippedFires,
  releaseFire,
  settleFire,
} from "../../repositories/task-triggers";
import { type JobQueue, jobIdForKey } from "../../infrastructure/job-queue";
import { chooseDueTimes, dueTimesThrough, nextDueAfter, type ScheduleShape } from "./trigger-schedule";

export const FIRE_JOB = "trigger-fire";
export const TRIGGER_SWEEP_JOB = "trigger-sweep";
/** A fire this overdue has lost its job (the sweep's threshold). */
const OVERDUE_MS = 120_000;

interface FireData {
  triggerId: number;
  revision: number;
  dueAt: string;
}

const fireKey = (data: FireData) => `${data.triggerId}:${data.revision}:${data.dueAt}`;

/** Enqueues the fire of the trigger's next due time, once whatever the callers. */
export function enqueueFire(jobs: JobQueue, trigger: { id: number; revision: number; nextRunAt: Date | null }) {
  if (!trigger.nextRunAt) return Promise.resolve(null);
  const data: FireData = { triggerId: trigger.id, revision: trigger.revision, dueAt: trigger.nextRunAt.toISOString() };
  return jobs.enqueue(FIRE_JOB, data, { key: fireKey(data), startAfter: trigger.nextRunAt, retryLimit: 5, retryDelaySeconds: 5, retryBackoff: true });
}

type FireTrigger = NonNullable<Awaited<ReturnType<typeof findTriggerForFire>>>;

/** Starts the task's run for one due time; the run's id. Throws PlatformError when admission refuses it. */
export type StartTriggeredRun = (trigger: FireTrigger, dueAt: Date) => Promise<number>;

export interface TriggerFiringDeps {
  prisma: Db;
  jobs: JobQueue;
  startRun: StartTriggeredRun;
}

export async function registerTriggerFiring(deps: TriggerFiringDeps): Promise<void> {
  const { prisma, jobs } = deps;

  const fireOnce = async (trigger: FireTrigger, dueAt: Date) => {
    const claim = await claimFire(prisma, trigger.id, dueAt);
    if (claim === null) return;
    try {
      const runId = await deps.startRun(trigger, dueAt);
      await settleFire(prisma, claim, { outcome: "started", runId });
    } catch (error) {
      // A cap, the balance or a rate limit: recorded, not lost silently, and not retried.
      if (error instanceof PlatformError) {
        await settleFire(prisma, claim, { outcome: "refused", reason: `${error.type}: ${error.message}` });
        return;
      }
      // Ours: give the due time back so the job's retry can fire it.
      await releaseFire(prisma, claim);
      throw error;
    }
  };

  const fire = async ({ data }: { data: FireData }) => {
    const trigger = await findTriggerForFire(prisma, data.triggerId);
    if (!trigger || trigger.revision !== data.revision || !trigger.enabled || trigger.retiredAt) return { stale: true };
    const shape: ScheduleShape = { cron: trigger.cron, intervalSeconds: trigger.intervalSeconds, runAt: trigger.runAt, timezone: trigger.timezone };
    // The queue starts it at the due time by the database's clock; this process's may lag a little.
    const now = new Date(Math.max(Date.now(), Date.parse(data.dueAt)));
    const due = dueTimesThrough(shape, new Date(data.dueAt), now);
    const { run, skip } = chooseDueTimes(due, now, {
      missedRuns: trigger.missedRuns as "skip" | "latest" | "all",
      maxLatenessSeconds: trigger.maxLatenessSeconds,
      maxCatchUp: MAX_CATCH_UP_RUNS,
    });
    await recordSkippedFires(prisma, trigger.id, skip, `missed while the platform was down (missed_runs=${trigger.missedRuns})`);
    for (const dueAt of run) await fireOnce(trigger, dueAt);
    const last = due.at(-1) ?? new Date(data.dueAt);
    const next = nextDueAfter(shape, dueAfterOrSame(shape, last), now);
    const moved = await advanceTrigger(prisma, trigger.id, trigger.revision, next ? { nextRunAt: next } : { nextRunAt: null, retiredAt: now });
    if (moved && next) await enqueueFire(jobs, { id: trigger.id, revision: trigger.revision, nextRunAt: next });
    return { fired: run.length, skipped: skip.length, next: next?.toISOString() ?? null };
  };

  const sweep = async () => {
    let requeued = 0;
    for (const trigger of await findOverdueTriggers(prisma, "schedule", new Date(Date.now() - OVERDUE_MS), 1_000)) {
      const data: FireData = { triggerId: trigger.id, revision: trigger.revision, dueAt: trigger.nextRunAt!.toISOString() };
      const job = await jobs.inspect(FIRE_JOB, jobIdForKey(FIRE_JOB, fireKey(data)));
      if (job && ["created", "retry", "active"].includes(job.state)) continue;
      await jobs.enqueue(FIRE_JOB, data, { key: `${fireKey(data)}:swept-${Date.now()}` });
      requeued++;
    }
    if (requeued > 0) logger.warn({ requeued }, "trigger fires re-enqueued by the sweep");
    return { requeued };
  };

  await jobs.register<FireData>(FIRE_JOB, fire, { concurrency: 4, expireInSeconds: 300 });
  await jobs.register(TRIGGER_SWEEP_JOB, sweep, { retryLimit: 0 });
  await jobs.schedule(TRIGGER_SWEEP_JOB, "every-minute", { cron: "* * * * *", timezone: "UTC" });
}

/** The due time after `due` (the next after the ones just handled), or `due` for a one-time run. */
function dueAfterOrSame(shape: ScheduleShape, due: Date): Date {
  if (shape.runAt) return due;
  if (shape.intervalSeconds) return new Date(due.getTime() + shape.intervalSeconds * 1000);
  return new Date(due.getTime() + 1);
}
