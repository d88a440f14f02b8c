// Task triggers (platform_task_triggers) and their fires (platform_trigger_fires). The only module that
// touches those tables. Queries by API name the account and the task's scope; the fire job reads by id.
import type { Prisma, PrismaClient } from "@/server/generated/prisma/client";
import { type PlainJson, toDbJson } from "./db";

export interface TriggerScope {
  accountId: number;
  endUserId: number | null;
}

const TRIGGER_JSON = ["triggerConfig", "pollCursor"] as const;
type TriggerJson = (typeof TRIGGER_JSON)[number];
export type TriggerData = PlainJson<Prisma.PlatformTaskTriggerUncheckedCreateInput, TriggerJson>;
export type TriggerRowUpdate = PlainJson<Prisma.PlatformTaskTriggerUncheckedUpdateInput, TriggerJson>;

const withUserId = { task: { select: { endUser: { select: { externalId: true } } } } } as const;

export type TriggerRow = Awaited<ReturnType<typeof insertTrigger>>;

export const insertTrigger = (prisma: PrismaClient, data: TriggerData) =>
  prisma.platformTaskTrigger.create({ data: toDbJson<Prisma.PlatformTaskTriggerUncheckedCreateInput>(data, TRIGGER_JSON), include: withUserId });

/** The task's triggers, oldest first. */
export const listTaskTriggers = (prisma: PrismaClient, taskId: number) =>
  prisma.platformTaskTrigger.findMany({ where: { taskId }, orderBy: { id: "asc" }, include: withUserId });

export const findTrigger = (prisma: PrismaClient, taskId: number, id: number) =>
  prisma.platformTaskTrigger.findFirst({ where: { taskId, id }, include: withUserId });

export const updateTrigger = (prisma: PrismaClient, id: number, data: TriggerRowUpdate) =>
  prisma.platformTaskTrigger.update({ where: { id }, data: toDbJson<Prisma.PlatformTaskTriggerUncheckedUpdateInput>(data, TRIGGER_JSON), include: withUserId });

export async function deleteTrigger(prisma: PrismaClient, taskId: number, id: number): Promise<boolean> {
  const { count } = await prisma.platformTaskTrigger.deleteMany({ where: { taskId, id } });
  return count > 0;
}

// --- Webhook triggers: the task's webhook (its token hash lives on the task) as a trigger row -------------

/** The task's webhook trigger (one per task: its writers lock the task row first). */
export const findWebhookTrigger = (prisma: PrismaClient, taskId: number) =>
  prisma.platformTaskTrigger.findFirst({ where: { taskId, type: "webhook" }, orderBy: { id: "asc" }, include: withUserId });

export const setWebhookTriggersEnabled = (prisma: PrismaClient, taskId: number, enabled: boolean) =>
  prisma.platformTaskTrigger.updateMany({ where: { taskId, type: "webhook" }, data: { enabled } });

export const deleteWebhookTriggers = (prisma: PrismaClient, taskId: number) =>
  prisma.platformTaskTrigger.deleteMany({ where: { taskId, type: "webhook" } });

/**
 * Records one event (an inbound webhook call, a mail, an app event) as a fire of its trigger (started
 * with its run, refused or skipped). Fires are unique per due time, so two events in the same
 * millisecond take the next free one.
 */
export async function recordEventFire(prisma: PrismaClient, triggerId: number, outcome: { outcome: string; runId?: number; reason?: string }) {
  const at = Date.now();
  for (let offset = 0; offset < 50; offset++) {
    const dueAt = new Date(at + offset);
    const rows = await prisma.$queryRaw<{ id: bigint }[]>`
      INSERT INTO platform_trigger_fires (trigger_id, due_at, fired_at, outcome, run_id, reason)
      VALUES (${triggerId}, ${dueAt}, now(), ${outcome.outcome}, ${outcome.runId ?? null}, ${outcome.reason ?? null})
      ON CONFLICT (trigger_id, due_at) DO NOTHING
      RETURNING id`;
    if (rows.length > 0) return;
  }
}

/**
 * GET /triggers: the account's triggers ordered by (task id, trigger id), after the cursor; an
 * end-user's only when `endUserId` is given. limit + 1 rows.
 */
export const listAccountTriggers = (
  prisma: PrismaClient,
  accountId: number,
  filter: { endUserId?: number; type?: string; taskId?: number; after?: { taskId: number; id: number }; limit: number },
) =>
  prisma.platformTaskTrigger.findMany({
    where: {
      accountId,
      ...(filter.endUserId !== undefined ? { task: { endUserId: filter.endUserId } } : {}),
      ...(filter.type !== undefined ? { type: filter.type } : {}),
      ...(filter.taskId !== undefined ? { taskId: filter.taskId } : {}),
      ...(filter.after
        ? { OR: [{ taskId: { gt: filter.after.taskId } }, { taskId: filter.after.taskId, id: { gt: filter.after.id } }] }
        : {}),
    },
    orderBy: [{ taskId: "asc" }, { id: "asc" }],
    take: filter.limit + 1,
    include: withUserId,
  });

// --- Firing --------------------------------------------------------------------------------------------

/** What a fire needs: the trigger and its task (with the task's end-user). */
export const findTriggerForFire = (prisma: PrismaClient, id: number) =>
  prisma.platformTaskTrigger.findUnique({
    where: { id },
    include: { task: { include: { endUser: { select: { externalId: true } } } } },
  });

/**
 * Claims a due time: true for the one caller that inserted its fire row (unique per trigger and due
 * time), false for every other.
 */
export async function claimFire(prisma: PrismaClient, triggerId: number, dueAt: Date): Promise<bigint | null> {
  const rows = await prisma.$queryRaw<{ id: bigint }[]>`
    INSERT INTO platform_trigger_fires (trigger_id, due_at, fired_at, outcome)
    VALUES (${triggerId}, ${dueAt}, now(), 'starting')
    ON CONFLICT (trigger_id, due_at) DO NOTHING
    RETURNING id`;
  return rows[0]?.id ?? null;
}

export const settleFire = (prisma: PrismaClient, id: bigint, outcome: { outcome: string; runId?: number; reason?: string }) =>
  prisma.platformTriggerFire.update({
    where: { id },
    data: { outcome: outcome.outcome, runId: outcome.runId ?? null, reason: outcome.reason ?? null },
  });

/** A claim given back (the start failed for a reason of ours): the job's retry claims it again. */
export const releaseFire = (prisma: PrismaClient, id: bigint) => prisma.platformTriggerFire.deleteMany({ where: { id } });

/** Due times skipped after downtime, recorded once each. */
export async function recordSkippedFires(prisma: PrismaClient, triggerId: number, dueTimes: Date[], reason: string) {
  if (dueTimes.length === 0) return;
  await prisma.platformTriggerFire.createMany({
    data: dueTimes.map((dueAt) => ({ triggerId, dueAt, outcome: "skipped", reason })),
    skipDuplicates: true,
  });
}

/** Moves the trigger to its next due time, unless it changed meanwhile (another revision). */
export async function advanceTrigger(
  prisma: PrismaClient,
  id: number,
  revision: number,
  next: { nextRunAt: Date | null; retiredAt?: Date },
): Promise<boolean> {
  const { count } = await prisma.platformTaskTrigger.updateMany({
    where: { id, revision },
    data: { nextRunAt: next.nextRunAt, ...(next.retiredAt ? { retiredAt: next.retiredAt } : {}) },
  });
  return count > 0;
}

/** Enabled triggers whose due time passed before `before`: their fire job may be lost (the sweep's). */
/** Enabled triggers of a type (schedules' fires, app triggers' polls) whose next_run_at passed before `before`. */
export const findOverdueTriggers = (prisma: PrismaClient, type: string, before: Date, limit: number) =>
  prisma.platformTaskTrigger.findMany({
    where: { type, enabled: true, retiredAt: null, nextRunAt: { lt: before } },
    select: { id: true, revision: true, nextRunAt: true },
    orderBy: { nextRunAt: "asc" },
    take: limit,
  });

/** A trigger's fires, newest first, after the cursor; limit + 1 rows. */
export const listFires = (prisma: PrismaClient, triggerId: number, page: { limit: number; startingAfter?: number }) =>
  prisma.platformTriggerFire.findMany({
    where: { triggerId, ...(page.startingAfter !== undefined ? { id: { lt: BigInt(page.startingAfter) } } : {}) },
    orderBy: { id: "desc" },
    take: page.limit + 1,
  });

/** The task in this exact scope (the triggers' parent), or null. */
export const findScopedTaskId = async (prisma: PrismaClient, scope: TriggerScope, taskId: number) =>
  (await prisma.platformTask.findFirst({ where: { id: taskId, accountId: scope.accountId, endUserId: scope.endUserId }, select: { id: true } }))
    ?.id ?? null;

/**
 * Moves an app trigger's poll cursor, only from the version the poll read: the poll that moves it
 * owns the events it found, so two polls of one trigger never start the same event's run twice.
 */
export async function movePollCursor(prisma: PrismaClient, id: number, fromVersion: number, cursor: { seen: string[] }, at: Date): Promise<boolean> {
  const { count } = await prisma.platformTaskTrigger.updateMany({
    where: { id, pollVersion: fromVersion },
    data: { pollCursor: cursor, pollVersion: { increment: 1 }, lastPolledAt: at, pollError: null },
  });
  return count === 1;
}

/** A poll that found nothing to claim (it failed, or the app is unreachable): when, and why. */
export const recordPollOutcome = (prisma: PrismaClient, id: number, at: Date, error: string | null) =>
  prisma.platformTaskTrigger.updateMany({ where: { id }, data: { lastPolledAt: at, pollError: error } });
