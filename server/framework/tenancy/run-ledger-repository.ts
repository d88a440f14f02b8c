// The run ledger's rows (server/framework/tenancy/run-ledger.ts): which platform run an admission's turn started,
// and its settlement. Settling is one compare-and-set on run_admissions.released_at, in the same
// transaction as the charge, so a settlement seen twice (a duplicate webhook, the sweep racing a
// delivery) charges once.
import { Prisma } from "@/server/generated/prisma/client";
import type { Db } from "./repository";

type Tx = Prisma.TransactionClient;

/** Names the run an open admission's turn started, and what the run had cost before the turn. */
export async function markAdmissionStarted(
  prisma: Db,
  { tenantId, admissionId, platformRunId, baseCostMicros }: { tenantId: string; admissionId: string; platformRunId: number; baseCostMicros: number },
): Promise<boolean> {
  const { count } = await prisma.runAdmission.updateMany({
    where: { id: admissionId, tenantId, releasedAt: null },
    data: { platformRunId, baseCostMicros: BigInt(baseCostMicros) },
  });
  return count === 1;
}

export interface OpenAdmission {
  id: string;
  tenantId: string;
  userId: string;
  platformRunId: number;
  baseCostMicros: number;
  /** The member's platform end-user id in the admission's tenant (null: never mapped). */
  platformUserId: string | null;
}

/**
 * Open admissions that `where` picks, oldest first, with the member's platform user_id joined in: one
 * round trip (a relation include would be three).
 */
async function queryOpenAdmissions(prisma: Db, where: Prisma.Sql, take?: number): Promise<OpenAdmission[]> {
  const rows = await prisma.$queryRaw<
    { id: string; tenant_id: string; user_id: string; platform_run_id: number; base_cost_micros: bigint; platform_user_id: string | null }[]
  >`
    SELECT a.id, a.tenant_id, a.user_id, a.platform_run_id, a.base_cost_micros, p.platform_user_id
    FROM run_admissions a
    LEFT JOIN tenant_platform_users p ON p.tenant_id = a.tenant_id AND p.user_id = a.user_id
    WHERE a.released_at IS NULL AND a.platform_run_id IS NOT NULL AND ${where}
    ORDER BY a.admitted_at${take === undefined ? Prisma.empty : Prisma.sql` LIMIT ${take}`}`;
  return rows.map((row) => ({
    id: row.id,
    tenantId: row.tenant_id,
    userId: row.user_id,
    platformRunId: row.platform_run_id,
    baseCostMicros: Number(row.base_cost_micros),
    platformUserId: row.platform_user_id,
  }));
}

/**
 * Admissions not settled yet, everywhere: each holds one of its tenant's active runs until it is
 * released (limits-repository.ts), so the sum of tenant_concurrency (a row per tenant) is the count
 * without reading run_admissions, which grows with every turn.
 */
export async function countOpenAdmissions(prisma: Db): Promise<number> {
  const rows = await prisma.$queryRaw<{ open: bigint | null }[]>`SELECT sum(active_runs)::bigint AS open FROM tenant_concurrency`;
  return Number(rows[0]?.open ?? 0);
}

/** The run's unsettled turns, oldest first. */
export async function listOpenAdmissionsOfRun(prisma: Db, platformRunId: number): Promise<OpenAdmission[]> {
  return queryOpenAdmissions(prisma, Prisma.sql`a.platform_run_id = ${platformRunId}`);
}

/** Started turns still unsettled since before `before`: the sweep asks the platform about their runs. */
export async function listStaleStartedAdmissions(prisma: Db, before: Date, take: number): Promise<OpenAdmission[]> {
  return queryOpenAdmissions(prisma, Prisma.sql`a.admitted_at < ${before}`, take);
}

/** Open admissions that never named a run (the process died between admission and the platform's answer). */
export async function listUnstartedAdmissions(prisma: Db, before: Date, take: number) {
  return prisma.runAdmission.findMany({
    where: { releasedAt: null, platformRunId: null, admittedAt: { lt: before } },
    select: { id: true, tenantId: true },
    take,
  });
}

/**
 * Settles an open admission at the run's total cost `runTotalMicros`: marks it released, charges the
 * turn's cost (the total less the turn's base, never below what it was charged already) to the
 * month's tenant and member usage and to the tenant's run record, detaches it from that record and
 * ends its hold on the concurrent runs. Null when it was settled (or withdrawn) already.
 */
export async function settleAdmissionIn(
  tx: Tx,
  tenantId: string,
  admissionId: string,
  runTotalMicros: number,
): Promise<{ chargedMicros: number } | null> {
  const rows = await tx.$queryRaw<{ user_id: string; period: string; platform_run_id: number | null; added: bigint }[]>`
    WITH before AS (
      SELECT id, cost_micros FROM run_admissions
      WHERE id = ${admissionId}::uuid AND tenant_id = ${tenantId}::uuid AND released_at IS NULL
      FOR UPDATE
    )
    UPDATE run_admissions AS a
    SET released_at = now(), cost_micros = GREATEST(${runTotalMicros}::bigint - a.base_cost_micros, a.cost_micros)
    FROM before WHERE a.id = before.id AND a.released_at IS NULL
    RETURNING a.user_id::text, a.period, a.platform_run_id, a.cost_micros - before.cost_micros AS added`;
  const row = rows[0];
  if (!row) return null;
  const added = Number(row.added);
  if (added > 0) {
    await tx.$executeRaw`
      INSERT INTO tenant_usage (tenant_id, period, cost_micros) VALUES (${tenantId}::uuid, ${row.period}, ${added}::bigint)
      ON CONFLICT (tenant_id, period) DO UPDATE SET cost_micros = tenant_usage.cost_micros + EXCLUDED.cost_micros`;
    await tx.$executeRaw`
      INSERT INTO member_usage (tenant_id, user_id, period, cost_micros)
      VALUES (${tenantId}::uuid, ${row.user_id}::uuid, ${row.period}, ${added}::bigint)
      ON CONFLICT (tenant_id, user_id, period) DO UPDATE SET cost_micros = member_usage.cost_micros + EXCLUDED.cost_micros`;
  }
  if (row.platform_run_id !== null) {
    await tx.$executeRaw`
      UPDATE tenant_runs
      SET cost_micros = cost_micros + ${added}::bigint,
          admission_id = CASE WHEN admission_id = ${admissionId}::uuid THEN NULL ELSE admission_id END
      WHERE tenant_id = ${tenantId}::uuid AND platform_run_id = ${row.platform_run_id}`;
  }
  await tx.$executeRaw`
    UPDATE tenant_concurrency SET active_runs = GREATEST(active_runs - 1, 0) WHERE tenant_id = ${tenantId}::uuid`;
  return { chargedMicros: added };
}
