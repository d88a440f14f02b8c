// The run ledger's rows (server/framework/tenancy/run-ledger.ts): which platform run an admission's turn started,
// and its settlement. Settling is one compare-and-set on run_admissions.released_at, in the same
// statement as the charge, so a settlement seen twice (a duplicate webhook, the sweep racing a
// delivery) charges once.
import { Prisma } from "@/server/generated/prisma/client";
import type { Db } from "./repository";

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
 * Settles an open admission at the run's total cost, in one statement (atomic, no transaction): marks
 * it released (the compare-and-set), adds what the turn cost beyond its run's earlier turns to the
 * tenant's and the member's month and to the run's record, and frees the tenant's concurrent slot.
 * Null when it was settled already, is another tenant's or is unknown: nothing is written then.
 *
 * The rows are locked in the order an admission takes them (limits-repository.ts: tenant month, member
 * month, then running runs), so the two cannot deadlock: each step's one-time condition counts the rows
 * of the step before it, which runs that step to its end before this one reads, let alone locks, a row.
 */
export async function settleAdmission(
  prisma: Db,
  admission: Pick<OpenAdmission, "id" | "tenantId">,
  runTotalMicros: number,
): Promise<{ chargedMicros: number } | null> {
  const { id: admissionId, tenantId } = admission;
  const rows = await prisma.$queryRaw<{ added: bigint }[]>`
    WITH before AS (
      SELECT id, cost_micros FROM run_admissions
      WHERE id = ${admissionId}::uuid AND tenant_id = ${tenantId}::uuid AND released_at IS NULL
      FOR UPDATE
    ), settled AS (
      UPDATE run_admissions AS a
      SET released_at = now(), cost_micros = GREATEST(${runTotalMicros}::bigint - a.base_cost_micros, a.cost_micros)
      FROM before WHERE a.id = before.id AND a.released_at IS NULL
      RETURNING a.user_id, a.period, a.platform_run_id, a.cost_micros - before.cost_micros AS added
    ), tenant_cost AS (
      INSERT INTO tenant_usage (tenant_id, period, cost_micros)
      SELECT ${tenantId}::uuid, period, added FROM settled WHERE added > 0
      ON CONFLICT (tenant_id, period) DO UPDATE SET cost_micros = tenant_usage.cost_micros + EXCLUDED.cost_micros
      RETURNING 1
    ), member_cost AS (
      INSERT INTO member_usage (tenant_id, user_id, period, cost_micros)
      SELECT ${tenantId}::uuid, user_id, period, added FROM settled
      WHERE (SELECT count(*) FROM tenant_cost) >= 0 AND added > 0
      ON CONFLICT (tenant_id, user_id, period) DO UPDATE SET cost_micros = member_usage.cost_micros + EXCLUDED.cost_micros
      RETURNING 1
    ), run_cost AS (
      UPDATE tenant_runs AS r
      SET cost_micros = r.cost_micros + settled.added,
          admission_id = CASE WHEN r.admission_id = ${admissionId}::uuid THEN NULL ELSE r.admission_id END
      FROM settled
      WHERE (SELECT count(*) FROM member_cost) >= 0 AND r.tenant_id = ${tenantId}::uuid AND r.platform_run_id = settled.platform_run_id
      RETURNING 1
    ), slot AS (
      UPDATE tenant_concurrency AS c SET active_runs = GREATEST(c.active_runs - 1, 0)
      FROM settled
      WHERE (SELECT count(*) FROM run_cost) >= 0 AND c.tenant_id = ${tenantId}::uuid
      RETURNING 1
    )
    SELECT settled.added FROM settled`;
  const row = rows[0];
  return row ? { chargedMicros: Number(row.added) } : null;
}
