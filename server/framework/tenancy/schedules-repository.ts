// Members' schedules (tenant_schedules): which platform task is whose, and the tenant's count of
// active ones. Taking an active slot (reserve, activate) locks the tenant's row first, so concurrent
// creates and resumes on any number of instances never exceed the tenant's maxActiveSchedules.
import type { PrismaClient } from "@/server/generated/prisma/client";
import type { Db } from "./repository";

export interface ScheduleRecord {
  id: string;
  tenantId: string;
  userId: string;
  tenantAgentId: string | null;
  agentName: string | null;
  platformTaskId: number | null;
  triggerId: string | null;
  name: string;
  cron: string;
  timezone: string;
  active: boolean;
  pausedReason: string | null;
  createdAt: Date;
}

const select = {
  id: true,
  tenantId: true,
  userId: true,
  tenantAgentId: true,
  platformTaskId: true,
  triggerId: true,
  name: true,
  cron: true,
  timezone: true,
  active: true,
  pausedReason: true,
  createdAt: true,
  agent: { select: { name: true } },
} as const;

type Row = Omit<ScheduleRecord, "agentName"> & { agent: { name: string } | null };
const toRecord = ({ agent, ...row }: Row): ScheduleRecord => ({ ...row, agentName: agent?.name ?? null });

export const countActiveSchedules = (prisma: Db, tenantId: string) => prisma.tenantSchedule.count({ where: { tenantId, active: true } });

/** Locks the tenant's row and reads its cap and how many schedules are active under it. */
async function lockActiveSlots(tx: Db, tenantId: string) {
  await tx.$queryRaw`SELECT id FROM tenants WHERE id = ${tenantId}::uuid FOR UPDATE`;
  const limits = await tx.tenantLimits.findUnique({ where: { tenantId }, select: { maxActiveSchedules: true } });
  const max = limits?.maxActiveSchedules ?? null;
  const active = await countActiveSchedules(tx, tenantId);
  return { max, active, full: max !== null && active >= max };
}

export type SlotRefusal = { refused: true; active: number; max: number };

/** Reserves an active schedule (no platform task yet), unless the tenant's cap is reached. */
export async function reserveSchedule(
  prisma: PrismaClient,
  schedule: { tenantId: string; userId: string; tenantAgentId: string; name: string; cron: string; timezone: string },
): Promise<{ refused: false; id: string } | SlotRefusal> {
  return prisma.$transaction(async (tx) => {
    const slots = await lockActiveSlots(tx, schedule.tenantId);
    if (slots.full) return { refused: true, active: slots.active, max: slots.max ?? 0 };
    const row = await tx.tenantSchedule.create({ data: { ...schedule, active: true }, select: { id: true } });
    return { refused: false, id: row.id };
  });
}

/** Marks a paused schedule active again, unless the tenant's cap is reached; false if it was not paused. */
export async function activateSchedule(prisma: PrismaClient, tenantId: string, id: string): Promise<{ refused: false; changed: boolean } | SlotRefusal> {
  return prisma.$transaction(async (tx) => {
    const slots = await lockActiveSlots(tx, tenantId);
    if (slots.full) return { refused: true, active: slots.active, max: slots.max ?? 0 };
    const { count } = await tx.tenantSchedule.updateMany({ where: { id, tenantId, active: false }, data: { active: true, pausedReason: null } });
    return { refused: false, changed: count === 1 };
  });
}

export async function completeSchedule(prisma: PrismaClient, id: string, platformTaskId: number, triggerId: string | null) {
  await prisma.tenantSchedule.update({ where: { id }, data: { platformTaskId, triggerId } });
}

export async function pauseScheduleRow(prisma: PrismaClient, tenantId: string, id: string, pausedReason: string | null) {
  await prisma.tenantSchedule.updateMany({ where: { id, tenantId }, data: { active: false, pausedReason } });
}

export async function deleteScheduleRow(prisma: PrismaClient, tenantId: string, id: string) {
  await prisma.tenantSchedule.deleteMany({ where: { id, tenantId } });
}

/** The caller's own schedule of that platform task; null for anyone else's (or a reservation). */
export async function findMemberSchedule(prisma: PrismaClient, tenantId: string, userId: string, platformTaskId: number) {
  const row = await prisma.tenantSchedule.findFirst({ where: { tenantId, userId, platformTaskId }, select });
  return row ? toRecord(row) : null;
}

export async function listMemberSchedules(prisma: PrismaClient, tenantId: string, userId: string): Promise<ScheduleRecord[]> {
  const rows = await prisma.tenantSchedule.findMany({
    where: { tenantId, userId, platformTaskId: { not: null } },
    select,
    orderBy: { createdAt: "asc" },
  });
  return rows.map(toRecord);
}

/** Every member's schedules, with who owns each and their platform user_id (for admins and the sweep). */
export async function listTenantSchedules(prisma: PrismaClient, where: { tenantId?: string; active?: boolean }, take = 1000) {
  const rows = await prisma.tenantSchedule.findMany({
    where: { ...where, platformTaskId: { not: null } },
    select: {
      ...select,
      user: { select: { email: true, name: true, platformUsers: { select: { tenantId: true, platformUserId: true } } } },
    },
    orderBy: { createdAt: "asc" },
    take,
  });
  return rows.map(({ user, ...row }) => ({
    ...toRecord(row),
    owner: { email: user.email, name: user.name },
    platformUserId: user.platformUsers.find((link) => link.tenantId === row.tenantId)?.platformUserId ?? null,
  }));
}

/** Reservations whose platform task never came (the process died in between): they free their slot. */
export async function deleteStaleReservations(prisma: PrismaClient, before: Date) {
  const { count } = await prisma.tenantSchedule.deleteMany({ where: { platformTaskId: null, createdAt: { lt: before } } });
  return count;
}
