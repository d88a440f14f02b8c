// The queue's recurring jobs (server/platform/infrastructure/job-queue.ts): one row per (job name, key).
import { randomUUID } from "node:crypto";
import type { Prisma, PrismaClient } from "@/server/generated/prisma/client";

export interface ScheduleRow {
  name: string;
  key: string;
  cron: string;
  timezone: string;
  data: unknown;
  revision: string;
}

const select = { name: true, key: true, cron: true, timezone: true, data: true, revision: true } as const;

export const findSchedule = (prisma: PrismaClient, name: string, key: string): Promise<ScheduleRow | null> =>
  prisma.jobSchedule.findUnique({ where: { name_key: { name, key } }, select });

export const listSchedules = (prisma: PrismaClient): Promise<ScheduleRow[]> =>
  prisma.jobSchedule.findMany({ select, orderBy: [{ name: "asc" }, { key: "asc" }] });

/**
 * Stores the definition. An unchanged one keeps its revision (every instance declares its schedules
 * at start-up); a new or changed one gets a fresh revision, so fires queued for the old one lapse.
 */
export async function saveSchedule(
  prisma: PrismaClient,
  definition: Omit<ScheduleRow, "revision">,
): Promise<ScheduleRow> {
  const existing = await findSchedule(prisma, definition.name, definition.key);
  if (
    existing &&
    existing.cron === definition.cron &&
    existing.timezone === definition.timezone &&
    JSON.stringify(existing.data) === JSON.stringify(definition.data)
  ) {
    return existing;
  }
  const fields = {
    cron: definition.cron,
    timezone: definition.timezone,
    data: definition.data as Prisma.InputJsonValue,
    revision: randomUUID(),
  };
  return prisma.jobSchedule.upsert({
    where: { name_key: { name: definition.name, key: definition.key } },
    create: { name: definition.name, key: definition.key, ...fields },
    update: fields,
    select,
  });
}

export async function deleteSchedule(prisma: PrismaClient, name: string, key: string): Promise<boolean> {
  const { count } = await prisma.jobSchedule.deleteMany({ where: { name, key } });
  return count > 0;
}
