// Runs and their event log. Every read is bound to the account and end-user scope.
import type { PlatformRun, PrismaClient } from "@/server/generated/prisma/client";
import { type Prisma } from "@/server/generated/prisma/client";
import type { RunFrame } from "@/lib/schemas/runs";

export type RunRow = PlatformRun;
export type RunData = Omit<Prisma.PlatformRunUncheckedCreateInput, "accountId" | "endUserId">;

interface ScopeKey {
  accountId: number;
  endUserId: number | null;
}

export interface StoredEvent {
  id: bigint;
  frame: RunFrame;
}

/** The run and its first event in one transaction, so a run is never seen without its log. */
export async function insertRun(prisma: PrismaClient, scope: ScopeKey, data: RunData, first: RunFrame): Promise<RunRow> {
  return prisma.$transaction(async (tx) => {
    const run = await tx.platformRun.create({ data: { ...data, accountId: scope.accountId, endUserId: scope.endUserId } });
    await tx.platformRunEvent.create({ data: { runId: run.id, type: first.type, data: first as Prisma.InputJsonObject } });
    return run;
  });
}

export const findRun = (prisma: PrismaClient, scope: ScopeKey, id: number) =>
  prisma.platformRun.findFirst({ where: { id, accountId: scope.accountId, endUserId: scope.endUserId } });

/**
 * A run anywhere in the account, with its end-user's external id: for an idempotent replay, which any
 * key of the account may ask for.
 */
export const findRunInAccount = (prisma: PrismaClient, accountId: number, id: number) =>
  prisma.platformRun.findFirst({ where: { id, accountId }, include: { endUser: { select: { externalId: true } } } });

export const findRunById = (prisma: PrismaClient, id: number) => prisma.platformRun.findUnique({ where: { id } });

export async function listRuns(
  prisma: PrismaClient,
  scope: ScopeKey,
  options: { limit: number; startingAfter?: number; agentId?: number; status?: string; allEndUsers: boolean },
): Promise<RunRow[]> {
  return prisma.platformRun.findMany({
    where: {
      accountId: scope.accountId,
      ...(options.allEndUsers ? {} : { endUserId: scope.endUserId }),
      ...(options.agentId !== undefined ? { agentId: options.agentId } : {}),
      ...(options.status !== undefined ? { status: options.status } : {}),
      ...(options.startingAfter !== undefined ? { id: { lt: options.startingAfter } } : {}),
    },
    orderBy: { id: "desc" },
    take: options.limit + 1,
  });
}

/** Changes a run only while it is in one of `from`; returns null when it was not (a lost race). */
export async function transitionRun(
  prisma: PrismaClient,
  id: number,
  from: readonly string[],
  data: Prisma.PlatformRunUncheckedUpdateInput,
): Promise<RunRow | null> {
  const { count } = await prisma.platformRun.updateMany({ where: { id, status: { in: [...from] } }, data });
  return count === 0 ? null : prisma.platformRun.findUnique({ where: { id } });
}

export const updateRun = (prisma: PrismaClient, id: number, data: Prisma.PlatformRunUncheckedUpdateInput) =>
  prisma.platformRun.update({ where: { id }, data });

export async function appendEvents(prisma: PrismaClient, runId: number, frames: RunFrame[]): Promise<void> {
  if (frames.length === 0) return;
  await prisma.platformRunEvent.createMany({
    data: frames.map((frame) => ({ runId, type: frame.type, data: frame as Prisma.InputJsonObject })),
  });
}

export async function eventsAfter(prisma: PrismaClient, runId: number, afterId: bigint, take: number): Promise<StoredEvent[]> {
  const rows = await prisma.platformRunEvent.findMany({
    where: { runId, id: { gt: afterId } },
    orderBy: { id: "asc" },
    take,
    select: { id: true, data: true },
  });
  return rows.map((row) => ({ id: row.id, frame: row.data as unknown as RunFrame }));
}

/**
 * Takes the run's lease for `owner` when nobody holds a live one. Returns false when another process
 * is executing it.
 */
export async function claimLease(prisma: PrismaClient, runId: number, owner: string, ttlMs: number): Promise<boolean> {
  const claimed = await prisma.$executeRaw`
    UPDATE platform_runs SET lease_owner = ${owner}, lease_expires_at = now() + make_interval(secs => ${ttlMs / 1000})
    WHERE id = ${runId} AND status = 'running'
      AND (lease_owner IS NULL OR lease_owner = ${owner} OR lease_expires_at < now())`;
  return claimed === 1;
}

export async function releaseLease(prisma: PrismaClient, runId: number, owner: string): Promise<void> {
  await prisma.platformRun.updateMany({ where: { id: runId, leaseOwner: owner }, data: { leaseOwner: null, leaseExpiresAt: null } });
}

export async function hasDoneEvent(prisma: PrismaClient, runId: number): Promise<boolean> {
  return (await prisma.platformRunEvent.count({ where: { runId, type: "done" } })) > 0;
}

/**
 * Ends runs whose executing process is gone: still `running`, with a lease that expired (or never
 * taken) `graceMs` ago. Returns the ids, already marked failed and interrupted.
 */
export async function failAbandonedRuns(prisma: PrismaClient, graceMs: number, message: string): Promise<RunRow[]> {
  const ids = await prisma.$queryRaw<{ id: number }[]>`
    UPDATE platform_runs
    SET status = 'failed', error = ${message}, stop_reason = 'interrupted', finished_at = now(), updated_at = now(),
        lease_owner = NULL, lease_expires_at = NULL,
        metadata = COALESCE(metadata, '{}'::jsonb) || '{"interrupted": true, "auto_retryable": true}'::jsonb
    WHERE status = 'running'
      AND COALESCE(lease_expires_at, updated_at) < now() - make_interval(secs => ${graceMs / 1000})
    RETURNING id`;
  if (ids.length === 0) return [];
  return prisma.platformRun.findMany({ where: { id: { in: ids.map((row) => row.id) } } });
}
