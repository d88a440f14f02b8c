// Per-tenant limits (set by the vendor owner) and per-member caps (set by tenant admins within them),
// enforced with database counters before a run reaches the platform. The run ledger (run-ledger.ts)
// calls admitRun before a run or reply starts, withdrawRun when the platform refused it, releaseRun
// when it failed unknowably, and settles ended runs itself (their cost and the release in one
// compare-and-set). Every counter lives in the database, so several app instances agree.
//
// What is counted: "runs" are runs, as the platform lists them (GET /runs, /runs in the console): a
// reply continues its run and is not another one. A reply is still a turn: it is checked against the
// run and cost caps (the platform's per_end_user_run_limit refuses a reply too once the month's runs
// are used up), holds a concurrent slot and counts as a message in the per-minute limit.
import { centsToMicros, formatCents } from "@inlay/core/money";
import type { MemberCapInput, TenantLimitsInput } from "@inlay/core/schemas/tenancy";
import type { Db } from "@/server/shared/db";
import { LimitExceededError, TenancyError } from "./errors";
import {
  decrementConcurrentRuns,
  deleteMemberCap,
  findActiveRuns,
  findAdmissionLimits,
  findMembershipForAdmission,
  findMemberUsage,
  findTenantLimits,
  findTenantUsage,
  findTurnsThisMinute,
  findTurnWindow,
  giveBackMonthlyRun,
  listMemberCaps,
  listMemberUsage,
  markAdmissionReleased,
  markAdmissionWithdrawn,
  minuteStart,
  takeAdmission,
  upsertMemberCap,
  upsertTenantLimits,
  type CapRecord,
  type TenantLimitsRecord,
} from "./limits-repository";
import { findTenantById, findTenantMember, listTenantMembers } from "./repository";
import { countActiveSchedules } from "./schedules-repository";
import type { MyUsage, TenantLimitsView, TenantCaps } from "@inlay/core/schemas/tenancy";

/** The calendar month (UTC) usage is counted in, e.g. "2026-11". */
export const periodOf = (now: Date) => now.toISOString().slice(0, 7);

/** When the month of `now` ends (UTC): monthly counters start over then. */
export const periodEnd = (now: Date) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));

// Short transactions, but admissions for one tenant queue on its counter rows (and PGlite has one
// connection), so a burst may wait longer than Prisma's 2 s default before it starts.
export const ADMISSION_TX = { maxWait: 15_000, timeout: 15_000 };

/** A turn starts a new run (counted in the month's runs) or replies on one (not counted: the same run). */
export type TurnKind = "run" | "reply";

export interface RunAdmissionTicket {
  /** The admission the run ledger settles. */
  admissionId: string;
  /** The month the run counts in. */
  period: string;
}

/** A cost limit or cap (whole cents, as set) in micro-USD, the unit spend is counted and compared in. */
const limitMicros = (cents: number | null) => (cents === null ? null : centsToMicros(cents));

/** A member's effective cap: their override where set, else the tenant default. */
function effectiveCap(limits: TenantLimitsRecord, override: CapRecord | null): CapRecord {
  return {
    runsPerMonth: override?.runsPerMonth ?? limits.memberRunsPerMonth,
    costPerMonthCents: override?.costPerMonthCents ?? limits.memberCostPerMonthCents,
  };
}

/**
 * Admits one turn (a new run, or a reply on one) for a member, or throws LimitExceededError naming the
 * first limit reached. Checks and reserves in one statement (takeAdmission), atomic on its own: the
 * tenant's and the member's monthly runs (a new run takes one; a reply is refused only when none is
 * left) and that their cost is under its limit, the tenant's concurrent runs and the member's messages
 * this minute. A refusal rolls every reservation back. Throws TenancyError NOT_FOUND when the user is
 * not a member.
 */
export async function admitRun(
  prisma: Db,
  { tenantId, userId, kind = "run" }: { tenantId: string; userId: string; kind?: TurnKind },
  now: Date = new Date(),
): Promise<RunAdmissionTicket> {
  const period = periodOf(now);
  // One statement, no transaction: a refusal takes nothing (takeAdmission).
  const taken = await takeAdmission(prisma, { tenantId, userId, period }, { limited: true, count: kind === "run" ? 1 : 0 });
  if (taken.taken) return { admissionId: taken.admission.id, period: taken.admission.period };
  const notMember = () => new TenancyError("NOT_FOUND", "not a member of this tenant");
  if (taken.refused === "membership") throw notMember();
  const found = await findAdmissionLimits(prisma, tenantId, userId);
  if (!found) throw notMember();
  // The refusal's numbers, read after it: the refused counter as it is now.
  const { limits } = found;
  const cap = effectiveCap(limits, found.cap);
  const tenantCostMicros = limitMicros(limits.costPerMonthCents);
  const memberCostMicros = limitMicros(cap.costPerMonthCents);
  const monthEnds = periodEnd(now).toISOString();
  switch (taken.refused) {
    case "tenant": {
      const used = await findTenantUsage(prisma, tenantId, period);
      throw new LimitExceededError(
        limits.runsPerMonth !== null && used.runs >= limits.runsPerMonth
          ? { limit: "tenant_runs", used: used.runs, max: limits.runsPerMonth, resetsAt: monthEnds }
          : { limit: "tenant_cost", used: used.costMicros, max: tenantCostMicros ?? 0, resetsAt: monthEnds },
      );
    }
    case "member": {
      const used = await findMemberUsage(prisma, tenantId, userId, period);
      throw new LimitExceededError(
        cap.runsPerMonth !== null && used.runs >= cap.runsPerMonth
          ? { limit: "member_runs", used: used.runs, max: cap.runsPerMonth, resetsAt: monthEnds }
          : { limit: "member_cost", used: used.costMicros, max: memberCostMicros ?? 0, resetsAt: monthEnds },
      );
    }
    case "concurrent": {
      const active = await findActiveRuns(prisma, tenantId);
      throw new LimitExceededError({ limit: "concurrent_runs", used: active, max: limits.concurrentRuns ?? 0, resetsAt: null });
    }
    case "turn": {
      const window = await findTurnWindow(prisma, tenantId, userId);
      throw new LimitExceededError({
        limit: "turns_per_minute",
        used: window.turns,
        max: limits.turnsPerMinutePerMember ?? 0,
        resetsAt: new Date(minuteStart(window.windowStart).getTime() + 60_000).toISOString(),
      });
    }
  }
}

/**
 * Ends an admitted run's hold on the tenant's concurrent runs. Safe to call more than once (only the
 * first call counts); false when the admission is unknown, another tenant's or already released.
 */
export async function releaseRun(
  prisma: Db,
  { tenantId, admissionId }: { tenantId: string; admissionId: string },
): Promise<boolean> {
  return prisma.$transaction(async (tx) => {
    if (!(await markAdmissionReleased(tx, tenantId, admissionId))) return false;
    await decrementConcurrentRuns(tx, tenantId);
    return true;
  }, ADMISSION_TX);
}

/**
 * Gives back an admission whose turn never started (the platform refused it, or it could not be
 * sent): like releaseRun, and for a new run (`kind` as admitted) the tenant's and the member's monthly
 * run counts go back down, so a refusal does not use up a run. The message stays counted in its
 * minute (that limit counts attempts). Safe to call more than once; false when the admission is
 * unknown, another tenant's or already released.
 */
export async function withdrawRun(
  prisma: Db,
  { tenantId, admissionId, kind = "run" }: { tenantId: string; admissionId: string; kind?: TurnKind },
): Promise<boolean> {
  return prisma.$transaction(async (tx) => {
    const admission = await markAdmissionWithdrawn(tx, tenantId, admissionId);
    if (!admission) return false;
    await decrementConcurrentRuns(tx, tenantId);
    if (kind === "run") await giveBackMonthlyRun(tx, tenantId, admission.userId, admission.period);
    return true;
  }, ADMISSION_TX);
}

/**
 * Counts a run the platform started by itself (a schedule's fire) into the month's counters and the
 * running-runs gauge, and opens its admission, so it is charged, settled and released like any other.
 * It already runs, so nothing refuses it here: callers check monthlyCapReached afterwards and pause
 * the schedules behind it (server/framework/tenancy/schedules.ts).
 */
export async function admitStartedRun(
  prisma: Db,
  { tenantId, userId }: { tenantId: string; userId: string },
  now: Date = new Date(),
): Promise<RunAdmissionTicket> {
  const period = periodOf(now);
  // Not limited, and not a member's turn of the minute: one statement (atomic on its own) that cannot refuse.
  const taken = await takeAdmission(prisma, { tenantId, userId, period }, { limited: false, count: 1 });
  if (!taken.taken) throw new Error(`an unlimited admission was refused at ${taken.refused}`);
  return { admissionId: taken.admission.id, period: taken.admission.period };
}

/**
 * The first monthly limit (the tenant's runs or cost, the member's runs or cost) that is used up, or
 * null. What admitRun would refuse on for the month, without reserving anything: schedules check it
 * when they are resumed and after their runs are counted.
 */
export async function monthlyCapReached(
  prisma: Db,
  { tenantId, userId }: { tenantId: string; userId: string },
  now: Date = new Date(),
): Promise<LimitExceededError | null> {
  const usage = await getMyUsage(prisma, tenantId, userId, now);
  const resetsAt = usage.resetsAt;
  const checks = [
    ["tenant_runs", usage.tenant.runs],
    ["tenant_cost", usage.tenant.costMicros],
    ["member_runs", usage.member.runs],
    ["member_cost", usage.member.costMicros],
  ] as const;
  for (const [limit, meter] of checks) {
    if (meter.max !== null && meter.used >= meter.max) return new LimitExceededError({ limit, used: meter.used, max: meter.max, resetsAt });
  }
  return null;
}

// --- Reading and setting limits ----------------------------------------------------------------------

export interface Meter {
  used: number;
  /** null: no limit. */
  max: number | null;
}

/** A member's usage against their caps and the tenant's limits, this month. */
export async function getMyUsage(prisma: Db, tenantId: string, userId: string, now = new Date()): Promise<MyUsage> {
  const period = periodOf(now);
  const membership = await findMembershipForAdmission(prisma, tenantId, userId);
  if (!membership) throw new TenancyError("NOT_FOUND", "not a member of this tenant");
  const [limits, memberUsage, tenantUsage, active, turns] = await Promise.all([
    findTenantLimits(prisma, tenantId),
    findMemberUsage(prisma, tenantId, userId, period),
    findTenantUsage(prisma, tenantId, period),
    findActiveRuns(prisma, tenantId),
    findTurnsThisMinute(prisma, tenantId, userId, now),
  ]);
  const cap = effectiveCap(limits, membership.cap);
  return {
    period,
    resetsAt: periodEnd(now).toISOString(),
    member: {
      runs: { used: memberUsage.runs, max: cap.runsPerMonth },
      costMicros: { used: memberUsage.costMicros, max: limitMicros(cap.costPerMonthCents) },
      turnsThisMinute: { used: turns, max: limits.turnsPerMinutePerMember },
    },
    tenant: {
      runs: { used: tenantUsage.runs, max: limits.runsPerMonth },
      costMicros: { used: tenantUsage.costMicros, max: limitMicros(limits.costPerMonthCents) },
      concurrentRuns: { used: active, max: limits.concurrentRuns },
    },
  };
}

export interface MemberCapRow {
  membershipId: string;
  email: string;
  name: string | null;
  role: "member" | "admin";
  override: CapRecord | null;
  effective: CapRecord;
  /** This month's; cost in micro-USD. */
  usage: { runs: number; costMicros: number };
}

const limitsView = (limits: TenantLimitsRecord): TenantLimitsView => ({
  runsPerMonth: limits.runsPerMonth,
  costPerMonthCents: limits.costPerMonthCents,
  concurrentRuns: limits.concurrentRuns,
  turnsPerMinutePerMember: limits.turnsPerMinutePerMember,
});

/** For tenant admins: the tenant's limits (read-only to them), the default cap and each member's. */
export async function getTenantCaps(prisma: Db, tenantId: string, now = new Date()): Promise<TenantCaps> {
  const period = periodOf(now);
  const [limits, members, overrides, usage, activeSchedules] = await Promise.all([
    findTenantLimits(prisma, tenantId),
    listTenantMembers(prisma, tenantId),
    listMemberCaps(prisma, tenantId),
    listMemberUsage(prisma, tenantId, period),
    countActiveSchedules(prisma, tenantId),
  ]);
  return {
    period,
    limits: limitsView(limits),
    defaultCap: { runsPerMonth: limits.memberRunsPerMonth, costPerMonthCents: limits.memberCostPerMonthCents },
    schedules: { maxActive: limits.maxActiveSchedules, active: activeSchedules },
    members: members.map((member) => {
      const override = overrides.get(member.id) ?? null;
      return {
        membershipId: member.id,
        email: member.email,
        name: member.name,
        role: member.role,
        override,
        effective: effectiveCap(limits, override),
        usage: usage.get(member.userId) ?? { runs: 0, costMicros: 0 },
      };
    }),
  };
}

/** A cap above the tenant's limit would promise what the tenant cannot give: refused, naming the field. */
function assertWithinTenant(cap: MemberCapInput, limits: TenantLimitsRecord) {
  if (limits.runsPerMonth !== null && cap.runsPerMonth !== null && cap.runsPerMonth > limits.runsPerMonth) {
    throw new TenancyError(
      "BAD_REQUEST",
      `Must be at most the workspace's limit of ${limits.runsPerMonth} runs a month.`,
      "runsPerMonth",
    );
  }
  if (
    limits.costPerMonthCents !== null &&
    cap.costPerMonthCents !== null &&
    cap.costPerMonthCents > limits.costPerMonthCents
  ) {
    throw new TenancyError(
      "BAD_REQUEST",
      `Must be at most the workspace's limit of ${formatCents(limits.costPerMonthCents)} a month.`,
      "costPerMonthCents",
    );
  }
}

export async function setDefaultMemberCap(prisma: Db, tenantId: string, cap: MemberCapInput) {
  assertWithinTenant(cap, await findTenantLimits(prisma, tenantId));
  await upsertTenantLimits(prisma, tenantId, {
    memberRunsPerMonth: cap.runsPerMonth,
    memberCostPerMonthCents: cap.costPerMonthCents,
  });
}

/**
 * The tenant admins' cap on active schedules (null: none). Lowering it below the schedules already
 * active pauses none of them; it refuses new ones and resumes until the count is under it.
 */
export async function setScheduleCap(prisma: Db, tenantId: string, maxActiveSchedules: number | null) {
  await upsertTenantLimits(prisma, tenantId, { maxActiveSchedules });
}

/** Sets a member's override, or with `cap` null returns them to the tenant default. */
export async function setMemberCap(
  prisma: Db,
  tenantId: string,
  membershipId: string,
  cap: MemberCapInput | null,
) {
  const member = await findTenantMember(prisma, tenantId, membershipId);
  if (!member) throw new TenancyError("NOT_FOUND", "no such member");
  if (cap === null) {
    await deleteMemberCap(prisma, membershipId);
    return;
  }
  assertWithinTenant(cap, await findTenantLimits(prisma, tenantId));
  await upsertMemberCap(prisma, membershipId, cap);
}

/**
 * For the vendor owner. Lowering a limit below existing member caps is allowed: admission checks the
 * tenant limit as well as the cap, so the lower one wins; the caps page shows the effective values.
 */
export async function setTenantLimits(prisma: Db, tenantId: string, limits: TenantLimitsInput) {
  if (!(await findTenantById(prisma, tenantId))) throw new TenancyError("NOT_FOUND", "no such tenant");
  await upsertTenantLimits(prisma, tenantId, limits);
}

