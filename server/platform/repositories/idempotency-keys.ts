// Idempotency keys: one row per (account, key), claimed with what it creates (a run or a judgment, its
// `resource`) and bound to it in the same statement or transaction. The unique (account_id, key) index
// decides races.
import type { PlatformIdempotencyKey, PrismaClient } from "@/server/generated/prisma/client";

export type IdempotencyKeyRow = PlatformIdempotencyKey;

/** A request's key as the write that creates its resource claims it (services/idempotency.ts, run-start.ts). */
export interface KeyClaim {
  key: string;
  resource: "run" | "judgment";
  requestHash: string;
  expiresAt: Date;
}

/**
 * Inserts the pending row unless one exists for (account, key). Returns the new row's id, or null
 * when another request holds the key (or an expired row still sits there).
 */
export async function insertPendingKey(prisma: PrismaClient, accountId: number, claim: KeyClaim): Promise<number | null> {
  // ON CONFLICT DO NOTHING rather than create + catch P2002: the loser learns it lost without a
  // failed statement (which would abort an enclosing PostgreSQL transaction) or an error in the log.
  const rows = await prisma.$queryRaw<{ id: number }[]>`
    INSERT INTO platform_idempotency_keys (account_id, key, resource, request_hash, expires_at)
    VALUES (${accountId}, ${claim.key}, ${claim.resource}, ${claim.requestHash}, ${claim.expiresAt})
    ON CONFLICT (account_id, key) DO NOTHING
    RETURNING id`;
  return rows[0]?.id ?? null;
}

export const findKey = (prisma: PrismaClient, accountId: number, key: string) =>
  prisma.platformIdempotencyKey.findUnique({ where: { accountId_key: { accountId, key } } });

/** Deletes the row only while it is still expired: a fresh claim that replaced it stays. */
export async function deleteExpiredKey(prisma: PrismaClient, id: number, now: Date): Promise<void> {
  await prisma.platformIdempotencyKey.deleteMany({ where: { id, expiresAt: { lte: now } } });
}

/** Deletes the row only while it is still pending (nothing bound). */
export async function deletePendingKey(prisma: PrismaClient, id: number, createdBefore?: Date): Promise<boolean> {
  const { count } = await prisma.platformIdempotencyKey.deleteMany({
    where: { id, runId: null, judgmentId: null, ...(createdBefore ? { createdAt: { lt: createdBefore } } : {}) },
  });
  return count === 1;
}

/** Binds a pending row to the run or judgment it names; false when the row is no longer this claim's. */
export async function bindKey(prisma: PrismaClient, id: number, resourceId: number): Promise<boolean> {
  const rows = await prisma.$executeRaw`
    UPDATE platform_idempotency_keys
    SET run_id = CASE WHEN resource = 'run' THEN ${resourceId}::int END,
        judgment_id = CASE WHEN resource = 'judgment' THEN ${resourceId}::int END
    WHERE id = ${id} AND run_id IS NULL AND judgment_id IS NULL`;
  return rows === 1;
}

/**
 * Housekeeping (a job, jobs/platform-jobs.ts): up to `limit` expired keys of any account, so the table
 * does not grow with every key ever sent. Returns how many went.
 */
export async function deleteExpiredKeys(prisma: PrismaClient, now: Date, limit: number): Promise<number> {
  return prisma.$executeRaw`
    DELETE FROM platform_idempotency_keys WHERE id IN (
      SELECT id FROM platform_idempotency_keys WHERE expires_at <= ${now} ORDER BY expires_at LIMIT ${limit})`;
}
