// Members' schedules: a platform task in the member's own scope (on their copy of a tenant agent) with
// one cron schedule trigger, in the member's time zone. The framework keeps which task is whose
// (tenant_schedules), so another member's or tenant's task is NOT_FOUND before the platform is asked,
// and it caps how many schedules a tenant has active at once (maxActiveSchedules).
//
// Caps on scheduled runs. A schedule fires inside the platform, with no framework call to admit it,
// so its runs cannot be refused beforehand by the framework's counters. Instead:
// - creating or resuming a schedule is refused while a monthly run or cost limit (tenant or member)
//   is used up, and beyond the tenant's active-schedule cap;
// - runs of schedules are adopted into the run ledger after the fact (beginStartedRun: the month's
//   counters and the running-runs gauge; settled like any other run, run-ledger.ts) by the member's
//   schedules page and by the every-minute framework sweep;
// - when an adopted run uses up a monthly limit, the schedules behind it are paused (pausedReason
//   "caps"): the member's for a member cap, every member's for a tenant limit.
// So a schedule can overshoot a monthly limit by the runs it fires before the next sweep (about a
// minute); concurrency and turns-per-minute limits do not stop a fire (they are counted, not checked).
// The platform's per-end-user settings (backstops.ts) remain the hard ceiling.
import {
  NotFoundError,
  type PlatformClient,
  type RunListItem,
  type Task,
  type Trigger,
} from "@inlay/core/platform-client";
import { cronOf, describeCron, nameFromInstructions, type ScheduleCreateInput } from "@inlay/core/schemas/schedules";
import type { Db } from "@/server/shared/db";
import { ensureAgentCopy, getVisibleAgent, type Caller } from "./agents";
import { LimitExceededError, TenancyError } from "./errors";
import { monthlyCapReached } from "./limits";
import type { PlatformConnection } from "./platform-connection";
import { insertTenantRunIfAbsent, listTenantRunIds } from "./platform-repository";
import { beginStartedRun, runRefused, runStarted } from "./run-ledger";
import { startAdmittedRun, type RunView } from "./runs";
import {
  activateSchedule,
  completeSchedule,
  deleteScheduleRow,
  deleteStaleReservations,
  findMemberSchedule,
  listMemberSchedules,
  listTenantSchedules,
  pauseScheduleRow,
  reserveSchedule,
  type ScheduleRecord,
  type SlotRefusal,
} from "./schedules-repository";
import type { ScheduleView, TenantScheduleView } from "@inlay/core/schemas/schedules";

/** How many recent runs a schedule shows, and how many the sweep looks at per schedule and pass. */
const RECENT_RUNS = 5;
const SWEEP_RUNS = 20;
/** A reservation older than this never got its platform task (the process died): its slot is freed. */
const RESERVATION_TTL_MS = 10 * 60_000;

const refusal = (slots: SlotRefusal) =>
  new LimitExceededError({ limit: "active_schedules", used: slots.active, max: slots.max, resetsAt: null });

async function ownSchedule(prisma: Db, caller: Caller, taskId: number): Promise<ScheduleRecord & { platformTaskId: number }> {
  const row = await findMemberSchedule(prisma, caller.tenantId, caller.userId, taskId);
  if (!row?.platformTaskId) throw new TenancyError("NOT_FOUND", "no such schedule");
  return { ...row, platformTaskId: row.platformTaskId };
}

/** The task's schedule trigger (the one POST /tasks made from `schedule`). */
async function scheduleTrigger(platform: PlatformClient, row: ScheduleRecord & { platformTaskId: number }): Promise<Trigger> {
  const triggers = (await platform.tasks.triggers.list(row.platformTaskId)).data;
  const trigger = triggers.find((t) => t.id === row.triggerId) ?? triggers.find((t) => t.type === "schedule");
  if (!trigger) throw new TenancyError("NOT_FOUND", "the schedule's trigger is gone");
  return trigger;
}

function toView(row: ScheduleRecord, task: Task, trigger: Trigger | undefined, runs: RunListItem[]): ScheduleView {
  return {
    taskId: task.id,
    agentId: row.tenantAgentId,
    agentName: row.agentName,
    name: task.name,
    instructions: task.instructions,
    cron: row.cron,
    timezone: row.timezone,
    description: describeCron(row.cron),
    active: row.active,
    pausedReason: row.pausedReason,
    nextRunAt: trigger?.next_run_at ?? null,
    runs: runs.map((run) => ({ id: run.id, status: run.status, createdAt: run.created_at, finishedAt: run.finished_at })),
    createdAt: row.createdAt.toISOString(),
  };
}

/** Refuses while a monthly limit of the tenant or the member is used up (a fire would go past it). */
async function assertMonthlyRoom(prisma: Db, caller: Caller) {
  const reached = await monthlyCapReached(prisma, { tenantId: caller.tenantId, userId: caller.userId });
  if (reached) throw reached;
}

export async function listSchedules(
  prisma: Db,
  platform: PlatformClient,
  connection: PlatformConnection,
  caller: Caller,
): Promise<ScheduleView[]> {
  const views: ScheduleView[] = [];
  for (const row of await listMemberSchedules(prisma, caller.tenantId, caller.userId)) {
    const taskId = row.platformTaskId!;
    try {
      const [task, triggers, runs] = await Promise.all([
        platform.tasks.get(taskId),
        platform.tasks.triggers.list(taskId),
        platform.runs.list({ task_id: taskId, limit: RECENT_RUNS }),
      ]);
      await adoptScheduledRuns(prisma, connection, row, runs.data);
      const trigger = triggers.data.find((t) => t.id === row.triggerId) ?? triggers.data.find((t) => t.type === "schedule");
      views.push(toView(row, task, trigger, runs.data));
    } catch (error) {
      // The task is gone on the platform (deleted through the API): so is the schedule.
      if (!(error instanceof NotFoundError)) throw error;
      await deleteScheduleRow(prisma, caller.tenantId, row.id);
    }
  }
  return views;
}

export async function createSchedule(
  prisma: Db,
  platform: PlatformClient,
  caller: Caller,
  input: ScheduleCreateInput,
): Promise<ScheduleView> {
  const agent = await getVisibleAgent(prisma, caller, input.agentId);
  await assertMonthlyRoom(prisma, caller);
  const teammateId = await ensureAgentCopy(prisma, platform, caller, agent);
  const cron = cronOf(input.when);
  const name = input.name ?? nameFromInstructions(input.instructions);
  const reservation = await reserveSchedule(prisma, {
    tenantId: caller.tenantId,
    userId: caller.userId,
    tenantAgentId: agent.id,
    name,
    cron,
    timezone: input.timezone,
  });
  if (reservation.refused) throw refusal(reservation);
  let task: Task;
  try {
    task = await platform.tasks.create({
      teammate_id: teammateId,
      instructions: input.instructions,
      name,
      schedule: cron,
      schedule_timezone: input.timezone,
    });
  } catch (error) {
    await deleteScheduleRow(prisma, caller.tenantId, reservation.id);
    throw error;
  }
  await completeSchedule(prisma, reservation.id, task.id, null);
  const row = await ownSchedule(prisma, caller, task.id);
  const trigger = await scheduleTrigger(platform, row);
  await completeSchedule(prisma, reservation.id, task.id, trigger.id);
  return toView({ ...row, triggerId: trigger.id }, task, trigger, []);
}

export async function pauseSchedule(prisma: Db, platform: PlatformClient, caller: Caller, taskId: number) {
  const row = await ownSchedule(prisma, caller, taskId);
  const trigger = await scheduleTrigger(platform, row);
  await platform.tasks.triggers.update(taskId, trigger.id, { enabled: false });
  await pauseScheduleRow(prisma, caller.tenantId, row.id, null);
  return { taskId, active: false };
}

/** Resuming takes an active slot again (the tenant's cap) and needs room in the month's limits. */
export async function resumeSchedule(prisma: Db, platform: PlatformClient, caller: Caller, taskId: number) {
  const row = await ownSchedule(prisma, caller, taskId);
  if (row.active) return { taskId, active: true };
  await assertMonthlyRoom(prisma, caller);
  const slot = await activateSchedule(prisma, caller.tenantId, row.id);
  if (slot.refused) throw refusal(slot);
  try {
    const trigger = await scheduleTrigger(platform, row);
    await platform.tasks.triggers.update(taskId, trigger.id, { enabled: true });
  } catch (error) {
    await pauseScheduleRow(prisma, caller.tenantId, row.id, row.pausedReason);
    throw error;
  }
  return { taskId, active: true };
}

export async function deleteSchedule(prisma: Db, platform: PlatformClient, caller: Caller, taskId: number) {
  const row = await ownSchedule(prisma, caller, taskId);
  try {
    await platform.tasks.delete(taskId);
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
  }
  await deleteScheduleRow(prisma, caller.tenantId, row.id);
  return { taskId };
}

/** A run of the schedule's task now, admitted like any run the member starts. */
export async function runScheduleNow(prisma: Db, platform: PlatformClient, caller: Caller, taskId: number): Promise<RunView> {
  const row = await ownSchedule(prisma, caller, taskId);
  return startAdmittedRun(prisma, caller, row.tenantAgentId, () => platform.tasks.run(taskId, { stream: false }));
}

/** For tenant admins, read-only: every member's schedules, with the next fire from the platform. */
export async function listTenantMemberSchedules(
  prisma: Db,
  connection: PlatformConnection,
  tenantId: string,
): Promise<TenantScheduleView[]> {
  const rows = await listTenantSchedules(prisma, { tenantId });
  return Promise.all(
    rows.map(async (row) => {
      let nextRunAt: string | null = null;
      if (row.platformUserId && row.active) {
        const triggers = await connection.client
          .forUser(row.platformUserId)
          .tasks.triggers.list(row.platformTaskId!)
          .catch((error: unknown) => (error instanceof NotFoundError ? { data: [] as Trigger[] } : Promise.reject(error)));
        nextRunAt = triggers.data.find((t) => t.type === "schedule")?.next_run_at ?? null;
      }
      return {
        taskId: row.platformTaskId!,
        member: row.owner,
        agentName: row.agentName,
        name: row.name,
        cron: row.cron,
        timezone: row.timezone,
        description: describeCron(row.cron),
        active: row.active,
        pausedReason: row.pausedReason,
        nextRunAt,
      };
    }),
  );
}

/**
 * Counts the schedule's runs the framework has not seen (the platform started them on a fire) into the
 * admission lifecycle, then pauses schedules if that used up a monthly limit. Safe on many instances
 * at once: the tenant_runs row is the claim, and a loser withdraws the admission it opened.
 */
export async function adoptScheduledRuns(
  prisma: Db,
  connection: PlatformConnection,
  row: ScheduleRecord,
  runs: RunListItem[],
): Promise<number> {
  const owner = { tenantId: row.tenantId, userId: row.userId };
  const candidates = runs.filter((run) => run.task_id === row.platformTaskId);
  const known = await listTenantRunIds(prisma, row.tenantId, row.userId, candidates.map((run) => run.id));
  let adopted = 0;
  for (const run of candidates) {
    if (known.has(run.id)) continue;
    const ticket = await beginStartedRun(prisma, owner);
    const entry = { ...owner, platformRunId: run.id, tenantAgentId: row.tenantAgentId, admissionId: ticket.admissionId };
    if (!(await insertTenantRunIfAbsent(prisma, entry))) {
      await runRefused(prisma, ticket);
      continue;
    }
    adopted++;
    // Its webhooks may have come before it was adopted (nothing to settle then): the listed state,
    // the platform's, settles it now if it has ended.
    await runStarted(prisma, ticket, run.id, { run });
  }
  if (adopted > 0) {
    const reached = await monthlyCapReached(prisma, owner);
    if (reached) await pauseForCaps(prisma, connection, row.tenantId, reached.details.limit.startsWith("member_") ? row.userId : null);
  }
  return adopted;
}

/** Pauses the member's active schedules (userId) or the whole tenant's (null) because a limit is used up. */
async function pauseForCaps(prisma: Db, connection: PlatformConnection, tenantId: string, userId: string | null) {
  const rows = await listTenantSchedules(prisma, { tenantId, active: true });
  for (const row of rows) {
    if ((userId && row.userId !== userId) || !row.platformUserId) continue;
    const scoped = connection.client.forUser(row.platformUserId);
    try {
      const trigger = await scheduleTrigger(scoped, { ...row, platformTaskId: row.platformTaskId! });
      await scoped.tasks.triggers.update(row.platformTaskId!, trigger.id, { enabled: false });
    } catch (error) {
      if (!(error instanceof NotFoundError) && !(error instanceof TenancyError)) throw error;
    }
    await pauseScheduleRow(prisma, tenantId, row.id, "caps");
  }
}

/**
 * The framework sweep's part for schedules (every minute): adopts the recent runs of every active
 * schedule and frees reservations whose platform task never came.
 */
export async function sweepSchedules(
  prisma: Db,
  connection: PlatformConnection,
  { now = new Date(), batch = 500 } = {},
): Promise<{ adopted: number; staleReservations: number }> {
  const staleReservations = await deleteStaleReservations(prisma, new Date(now.getTime() - RESERVATION_TTL_MS));
  let adopted = 0;
  for (const row of await listTenantSchedules(prisma, { active: true }, batch)) {
    if (!row.platformUserId) continue;
    const runs = await connection.client.forUser(row.platformUserId).runs.list({ task_id: row.platformTaskId!, limit: SWEEP_RUNS });
    adopted += await adoptScheduledRuns(prisma, connection, row, runs.data);
  }
  return { adopted, staleReservations };
}
