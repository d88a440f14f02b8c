// A running run's checkpoint (runtime/recovery.ts): written while its worker holds the lease, dropped
// once the execution that wrote it has ended.
import type { PrismaClient } from "@/server/generated/prisma/client";
import { Prisma } from "@/server/generated/prisma/client";
import type { JsonObject } from "./db";

/** Stores the run's checkpoint while `owner` still holds it; false (nothing written) once it does not. */
export async function saveCheckpoint(prisma: PrismaClient, runId: number, owner: string, checkpoint: JsonObject): Promise<boolean> {
  const { count } = await prisma.platformRun.updateMany({
    where: { id: runId, leaseOwner: owner, status: "running" },
    data: { checkpoint: checkpoint as Prisma.InputJsonObject },
  });
  return count === 1;
}

/**
 * Whether the run goes on without `owner`: still running, but its lease handed back (null) or taken
 * over by another worker, whose pass redoes whatever was not checkpointed.
 */
export async function runGoesOnElsewhere(prisma: PrismaClient, runId: number, owner: string): Promise<boolean> {
  const row = await prisma.platformRun.findUnique({ where: { id: runId }, select: { leaseOwner: true, status: true } });
  return row !== null && row.status === "running" && row.leaseOwner !== owner;
}

/**
 * Notes in the checkpoint that a tool with side effects is starting, with the run's last event id at
 * that moment (so a note left by an earlier execution of the run can be told apart).
 */
export async function markCheckpointUnsafe(prisma: PrismaClient, runId: number, owner: string, toolName: string) {
  await prisma.$executeRaw`
    UPDATE platform_runs SET checkpoint = COALESCE(checkpoint, '{}'::jsonb) || jsonb_build_object(
      'unsafe_tool', ${toolName}::text,
      'unsafe_at_event', (SELECT COALESCE(max(id), 0)::text FROM platform_run_events WHERE run_id = ${runId}))
    WHERE id = ${runId} AND lease_owner = ${owner}`;
}

/** Drops the checkpoint once the execution that wrote it has ended (completed, paused, failed). */
export async function clearCheckpoint(prisma: PrismaClient, runId: number) {
  await prisma.platformRun.updateMany({ where: { id: runId, status: { not: "running" } }, data: { checkpoint: Prisma.DbNull } });
}
