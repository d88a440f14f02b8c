// Per-tenant limits, per-member caps and the usage counters behind them. The counter updates are
// conditional upserts (`INSERT … ON CONFLICT DO UPDATE … WHERE used < limit`, an admission's in one statement):
// PostgreSQL re-checks the condition on the newest row
// version after waiting for a concurrent writer's lock, so instances sharing the database never admit
// more than the limit. Callers take the rows in one order (tenant month, member month, concurrency,
// turn window, then the admission row) so concurrent admissions cannot deadlock.
import { randomUUID } from "node:crypto";
import { centsToMicros } from "@inlay/core/money";
import { Prisma } from "@/server/generated/prisma/client";
import type { Db } from "./repository";

type Tx = Prisma.TransactionClient;

export interface TenantLimitsRecord {
  runsPerMonth: number | null;
  costPerMonthCents: number | null;
  concurrentRuns: number | null;
  turnsPerMinutePerMember: number | null;
  memberRunsPerMonth: number | null;
  memberCostPerMonthCents: number | null;
  maxActiveSchedules: number | null;
}

export const NO_LIMITS: TenantLimitsRecord = {
  runsPerMonth: null,
  costPerMonthCents: null,
  concurrentRuns: null,
  turnsPerMinutePerMember: null,
  memberRunsPerMonth: null,
  memberCostPerMonthCents: null,
  maxActiveSchedules: null,
};

export interface CapRecord {
  runsPerMonth: number | null;
  costPerMonthCents: number | null;
}

export interface UsageRecord {
  runs: number;
  /** Micro-USD, exact (a Number: exact up to about $9 billion). */
  costMicros: number;
}

/** A BIGINT of micro-USD (Prisma's bigint, or a raw row's) as the Number the framework works in. */
const micros = (value: bigint | number | null | undefined) => Number(value ?? 0);

const pick = (row: TenantLimitsRecord): TenantLimitsRecord => ({
  runsPerMonth: row.runsPerMonth,
  costPerMonthCents: row.costPerMonthCents,
  concurrentRuns: row.concurrentRuns,
  turnsPerMinutePerMember: row.turnsPerMinutePerMember,
  memberRunsPerMonth: row.memberRunsPerMonth,
  memberCostPerMonthCents: row.memberCostPerMonthCents,
  maxActiveSchedules: row.maxActiveSchedules,
});

export async function findTenantLimits(prisma: Db, tenantId: string): Promise<TenantLimitsRecord> {
  const row = await prisma.tenantLimits.findUnique({ where: { tenantId } });
  return row ? pick(row) : NO_LIMITS;
}

export async function listTenantLimits(prisma: Db): Promise<Map<string, TenantLimitsRecord>> {
  const rows = await prisma.tenantLimits.findMany();
  return new Map(rows.map((row) => [row.tenantId, pick(row)]));
}

export async function upsertTenantLimits(prisma: Db, tenantId: string, limits: Partial<TenantLimitsRecord>) {
  await prisma.tenantLimits.upsert({ where: { tenantId }, create: { tenantId, ...limits }, update: limits });
}

export async function listMemberCaps(prisma: Db, tenantId: string): Promise<Map<string, CapRecord>> {
  const rows = await prisma.memberCap.findMany({ where: { membership: { tenantId } } });
  return new Map(
    rows.map((row) => [row.membershipId, { runsPerMonth: row.runsPerMonth, costPerMonthCents: row.costPerMonthCents }]),
  );
}

export async function upsertMemberCap(prisma: Db, membershipId: string, cap: CapRecord) {
  await prisma.memberCap.upsert({ where: { membershipId }, create: { membershipId, ...cap }, update: cap });
}

export async function deleteMemberCap(prisma: Db, membershipId: string) {
  await prisma.memberCap.deleteMany({ where: { membershipId } });
}

export async function findTenantUsage(prisma: Db, tenantId: string, period: string): Promise<UsageRecord> {
  const row = await prisma.tenantUsage.findUnique({ where: { tenantId_period: { tenantId, period } } });
  return { runs: row?.runs ?? 0, costMicros: micros(row?.costMicros) };
}

export async function listTenantUsage(prisma: Db, period: string): Promise<Map<string, UsageRecord>> {
  const rows = await prisma.tenantUsage.findMany({ where: { period } });
  return new Map(rows.map((row) => [row.tenantId, { runs: row.runs, costMicros: micros(row.costMicros) }]));
}

export async function findMemberUsage(prisma: Db, tenantId: string, userId: string, period: string): Promise<UsageRecord> {
  const row = await prisma.memberUsage.findUnique({ where: { tenantId_userId_period: { tenantId, userId, period } } });
  return { runs: row?.runs ?? 0, costMicros: micros(row?.costMicros) };
}

export async function listMemberUsage(prisma: Db, tenantId: string, period: string): Promise<Map<string, UsageRecord>> {
  const rows = await prisma.memberUsage.findMany({ where: { tenantId, period } });
  return new Map(rows.map((row) => [row.userId, { runs: row.runs, costMicros: micros(row.costMicros) }]));
}

export async function findActiveRuns(prisma: Db, tenantId: string): Promise<number> {
  const row = await prisma.tenantConcurrency.findUnique({ where: { tenantId } });
  return row?.activeRuns ?? 0;
}

/** Turns in the member's current minute (0 when their last turn was in an earlier minute). */
export async function findTurnsThisMinute(prisma: Db, tenantId: string, userId: string, now: Date): Promise<number> {
  const row = await prisma.memberTurnWindow.findUnique({ where: { tenantId_userId: { tenantId, userId } } });
  return row && row.windowStart.getTime() >= minuteStart(now).getTime() ? row.turns : 0;
}

export const minuteStart = (now: Date) => new Date(Math.floor(now.getTime() / 60_000) * 60_000);

// --- Admission --------------------------------------------------------------------------------------

/** Where an admission was refused: "membership", the user is no member of the tenant; else the first counter that refused. */
const ADMISSION_REFUSALS = ["membership", "tenant", "member", "concurrent", "turn"] as const;
export type AdmissionRefusal = (typeof ADMISSION_REFUSALS)[number];

/** Nothing is taken when refused: the statement that refused rolled back whole. */
export type AdmissionTaken = { taken: true; admission: { id: string; period: string } } | { taken: false; refused: AdmissionRefusal };

const REFUSED_AT = new RegExp(`admission refused at (${ADMISSION_REFUSALS.join("|")})\\b`);

/**
 * Takes an admission in one statement. `limited`: the member's limits, read in the same statement (the
 * tenant's limits and the member's effective cap: their override where set, else the tenant's
 * default, as limits.ts's effectiveCap reads it), checked and reserved: `count` more runs this month
 * for the tenant and the member (1 for a new run, 0 for a reply, which continues one) unless a runs or
 * cost limit is reached already, one more run in progress for the tenant, one more turn in the
 * member's current minute (the database's clock, so instances agree; a later minute starts the window
 * over), and the admission row. Not `limited` (a run the platform started by itself): the same
 * counters and row, no limit, no turn, no membership needed; it cannot be refused. Each step is a
 * conditional upsert that runs only when the one before it took its row, so the rows are locked in the
 * order the module's header gives. A refusal names its step, and the statement's error undoes the steps
 * before it: call it outside a transaction (that error would abort one).
 */
export async function takeAdmission(
  db: Db,
  who: { tenantId: string; userId: string; period: string },
  { limited, count }: { limited: boolean; count: 0 | 1 },
): Promise<AdmissionTaken> {
  const { tenantId, userId, period } = who;
  const id = randomUUID();
  const microsPerCent = centsToMicros(1);
  const limits = limited
    ? Prisma.sql`
      SELECT l.runs_per_month AS tenant_runs, l.cost_per_month_cents::bigint * ${microsPerCent}::bigint AS tenant_cost,
             COALESCE(c.runs_per_month, l.member_runs_per_month) AS member_runs,
             COALESCE(c.cost_per_month_cents, l.member_cost_per_month_cents)::bigint * ${microsPerCent}::bigint AS member_cost,
             l.concurrent_runs AS concurrent, l.turns_per_minute_per_member AS turns
      FROM memberships m
      LEFT JOIN member_caps c ON c.membership_id = m.id
      LEFT JOIN tenant_limits l ON l.tenant_id = m.tenant_id
      WHERE m.tenant_id = ${tenantId}::uuid AND m.user_id = ${userId}::uuid`
    : Prisma.sql`SELECT NULL::int AS tenant_runs, NULL::bigint AS tenant_cost, NULL::int AS member_runs, NULL::bigint AS member_cost, NULL::int AS concurrent`;
  // GREATEST: a statement that started in the previous minute but waited for the lock must not move
  // the window back.
  const turn = limited
    ? Prisma.sql`, turn AS (
      INSERT INTO member_turn_windows AS w (tenant_id, user_id, window_start, turns)
      SELECT ${tenantId}::uuid, ${userId}::uuid, date_trunc('minute', now()), 1 FROM lim
      WHERE EXISTS (SELECT 1 FROM concurrent) AND (lim.turns IS NULL OR lim.turns > 0)
      ON CONFLICT (tenant_id, user_id) DO UPDATE
      SET turns = CASE WHEN w.window_start >= date_trunc('minute', now()) THEN w.turns + 1 ELSE 1 END,
          window_start = GREATEST(w.window_start, date_trunc('minute', now()))
      WHERE (SELECT turns IS NULL OR (turns > 0 AND (w.window_start < date_trunc('minute', now()) OR w.turns < turns)) FROM lim)
      RETURNING 1
    )`
    : Prisma.empty;
  const last = limited ? Prisma.sql`turn` : Prisma.sql`concurrent`;
  // A refusal ends the statement with an error (the migration's framework_refuse_admission), which
  // rolls back the counters taken before the refusing one: atomic without a transaction around it.
  return db.$queryRaw`
    WITH lim AS (${limits}), tenant_run AS (
      INSERT INTO tenant_usage AS u (tenant_id, period, runs)
      SELECT ${tenantId}::uuid, ${period}, ${count}::int FROM lim
      WHERE (lim.tenant_runs IS NULL OR lim.tenant_runs > 0) AND (lim.tenant_cost IS NULL OR lim.tenant_cost > 0)
      ON CONFLICT (tenant_id, period) DO UPDATE SET runs = u.runs + ${count}::int
      WHERE (SELECT (tenant_runs IS NULL OR u.runs < tenant_runs) AND (tenant_cost IS NULL OR u.cost_micros < tenant_cost) FROM lim)
      RETURNING 1
    ), member_run AS (
      INSERT INTO member_usage AS u (tenant_id, user_id, period, runs)
      SELECT ${tenantId}::uuid, ${userId}::uuid, ${period}, ${count}::int FROM lim
      WHERE EXISTS (SELECT 1 FROM tenant_run)
        AND (lim.member_runs IS NULL OR lim.member_runs > 0) AND (lim.member_cost IS NULL OR lim.member_cost > 0)
      ON CONFLICT (tenant_id, user_id, period) DO UPDATE SET runs = u.runs + ${count}::int
      WHERE (SELECT (member_runs IS NULL OR u.runs < member_runs) AND (member_cost IS NULL OR u.cost_micros < member_cost) FROM lim)
      RETURNING 1
    ), concurrent AS (
      -- Counted even without a limit, so a limit set later starts from the true number.
      INSERT INTO tenant_concurrency AS c (tenant_id, active_runs)
      SELECT ${tenantId}::uuid, 1 FROM lim WHERE EXISTS (SELECT 1 FROM member_run) AND (lim.concurrent IS NULL OR lim.concurrent > 0)
      ON CONFLICT (tenant_id) DO UPDATE SET active_runs = c.active_runs + 1
      WHERE (SELECT concurrent IS NULL OR c.active_runs < concurrent FROM lim)
      RETURNING 1
    )${turn}, admitted AS (
      INSERT INTO run_admissions (id, tenant_id, user_id, period, admitted_at)
      SELECT ${id}::uuid, ${tenantId}::uuid, ${userId}::uuid, ${period}, ${new Date()}
      WHERE EXISTS (SELECT 1 FROM ${last})
      RETURNING 1
    )
    SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM admitted) THEN framework_refuse_admission(
             CASE WHEN NOT EXISTS (SELECT 1 FROM lim) THEN 'membership' WHEN NOT EXISTS (SELECT 1 FROM tenant_run) THEN 'tenant'
                  WHEN NOT EXISTS (SELECT 1 FROM member_run) THEN 'member' WHEN NOT EXISTS (SELECT 1 FROM concurrent) THEN 'concurrent'
                  ELSE 'turn' END) END AS refused`.then(
    () => ({ taken: true as const, admission: { id, period } }),
    (error: unknown) => {
      const refused = REFUSED_AT.exec(error instanceof Error ? error.message : String(error))?.[1] as AdmissionRefusal | undefined;
      if (refused === undefined) throw error;
      return { taken: false as const, refused };
    },
  );
}

/** The member's turn window as it is (for a refusal's numbers). */
export async function findTurnWindow(tx: Db, tenantId: string, userId: string): Promise<{ turns: number; windowStart: Date }> {
  const rows = await tx.$queryRaw<{ turns: number; window_start: Date }[]>`
    SELECT turns, window_start FROM member_turn_windows WHERE tenant_id = ${tenantId}::uuid AND user_id = ${userId}::uuid`;
  const row = rows[0];
  return { turns: row?.turns ?? 0, windowStart: row ? new Date(row.window_start) : new Date() };
}

/** Marks the admission released; false when it is unknown, another tenant's or already released. */
export async function markAdmissionReleased(tx: Tx, tenantId: string, admissionId: string): Promise<boolean> {
  const { count } = await tx.runAdmission.updateMany({
    where: { id: admissionId, tenantId, releasedAt: null },
    data: { releasedAt: new Date() },
  });
  return count === 1;
}

/**
 * Marks the admission released as one that never became a run; its member and month (to give the
 * run back), or null when it is unknown, another tenant's or already released.
 */
export async function markAdmissionWithdrawn(tx: Tx, tenantId: string, admissionId: string): Promise<{ userId: string; period: string } | null> {
  const rows = await tx.$queryRaw<{ user_id: string; period: string }[]>`
    UPDATE run_admissions SET released_at = now()
    WHERE id = ${admissionId}::uuid AND tenant_id = ${tenantId}::uuid AND released_at IS NULL
    RETURNING user_id::text, period`;
  const row = rows[0];
  return row ? { userId: row.user_id, period: row.period } : null;
}

/** Takes one run back off the tenant's and the member's counts for the month (never below zero). */
export async function giveBackMonthlyRun(tx: Tx, tenantId: string, userId: string, period: string) {
  await tx.$executeRaw`
    UPDATE tenant_usage SET runs = GREATEST(runs - 1, 0) WHERE tenant_id = ${tenantId}::uuid AND period = ${period}`;
  await tx.$executeRaw`
    UPDATE member_usage SET runs = GREATEST(runs - 1, 0)
    WHERE tenant_id = ${tenantId}::uuid AND user_id = ${userId}::uuid AND period = ${period}`;
}

export async function decrementConcurrentRuns(tx: Tx, tenantId: string) {
  await tx.$executeRaw`
    UPDATE tenant_concurrency SET active_runs = GREATEST(active_runs - 1, 0) WHERE tenant_id = ${tenantId}::uuid`;
}

/**
 * What an admission checks, in one round trip: the membership (null when not a member), its cap
 * override and the tenant's limits.
 */
export async function findAdmissionLimits(
  tx: Db,
  tenantId: string,
  userId: string,
): Promise<{ membershipId: string; cap: CapRecord | null; limits: TenantLimitsRecord } | null> {
  const rows = await tx.$queryRaw<
    {
      membership_id: string;
      has_cap: boolean;
      cap_runs: number | null;
      cap_cost: number | null;
      has_limits: boolean;
      runs_per_month: number | null;
      cost_per_month_cents: number | null;
      concurrent_runs: number | null;
      turns_per_minute_per_member: number | null;
      member_runs_per_month: number | null;
      member_cost_per_month_cents: number | null;
      max_active_schedules: number | null;
    }[]
  >`
    SELECT m.id AS membership_id, c.membership_id IS NOT NULL AS has_cap, c.runs_per_month AS cap_runs,
           c.cost_per_month_cents AS cap_cost, l.tenant_id IS NOT NULL AS has_limits, l.runs_per_month,
           l.cost_per_month_cents, l.concurrent_runs, l.turns_per_minute_per_member, l.member_runs_per_month,
           l.member_cost_per_month_cents, l.max_active_schedules
    FROM memberships m
    LEFT JOIN member_caps c ON c.membership_id = m.id
    LEFT JOIN tenant_limits l ON l.tenant_id = m.tenant_id
    WHERE m.tenant_id = ${tenantId}::uuid AND m.user_id = ${userId}::uuid`;
  const row = rows[0];
  if (!row) return null;
  return {
    membershipId: row.membership_id,
    cap: row.has_cap ? { runsPerMonth: row.cap_runs, costPerMonthCents: row.cap_cost } : null,
    limits: row.has_limits
      ? {
          runsPerMonth: row.runs_per_month,
          costPerMonthCents: row.cost_per_month_cents,
          concurrentRuns: row.concurrent_runs,
          turnsPerMinutePerMember: row.turns_per_minute_per_member,
          memberRunsPerMonth: row.member_runs_per_month,
          memberCostPerMonthCents: row.member_cost_per_month_cents,
          maxActiveSchedules: row.max_active_schedules,
        }
      : NO_LIMITS,
  };
}

/** The membership and its override, read together. */
export async function findMembershipForAdmission(tx: Db, tenantId: string, userId: string) {
  const row = await tx.membership.findUnique({
    where: { tenantId_userId: { tenantId, userId } },
    include: { cap: true },
  });
  if (!row) return null;
  return { membershipId: row.id, cap: row.cap ? { runsPerMonth: row.cap.runsPerMonth, costPerMonthCents: row.cap.costPerMonthCents } : null };
}
