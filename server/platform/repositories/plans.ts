// Plans: the plan row of an account and the funding rows of its runs (services/billing/plans.ts and
// services/runs/run-funding.ts). Admissions of an account on a plan lock the plan row (lockAccountPlan), so
// the counts they then read (runs in the window, overage, runs in progress) are decided one at a time.
// Before that lock, readPlanAdmission reads the same figures unlocked, so that a refusal they already
// prove does not wait for it.
import { Prisma, type PrismaClient } from "@/server/generated/prisma/client";
import type { Tx } from "./db";
import { ACTIVE_STATUSES } from "@inlay/core/schemas/run-constants";

export interface AccountPlanRow {
  accountId: number;
  slug: string;
  billingPeriod: string;
  periodAnchor: Date;
  currentPeriodEnd: Date | null;
  trialEndsAt: Date | null;
  providerSubscriptionId: string | null;
  overageEnabled: boolean;
  overageCapCents: number;
}

const PLAN_COLUMNS = {
  accountId: true,
  slug: true,
  billingPeriod: true,
  periodAnchor: true,
  currentPeriodEnd: true,
  trialEndsAt: true,
  providerSubscriptionId: true,
  overageEnabled: true,
  overageCapCents: true,
} as const;

export const findAccountPlan = (prisma: PrismaClient, accountId: number): Promise<AccountPlanRow | null> =>
  prisma.platformAccountPlan.findUnique({ where: { accountId }, select: PLAN_COLUMNS });

/** Locks the account's plan row (admissions of the account wait) and reads it; null when it has none. */
export async function lockAccountPlan(tx: Tx, accountId: number): Promise<AccountPlanRow | null> {
  const rows = await tx.$queryRaw<AccountPlanRow[]>`
    SELECT account_id AS "accountId", slug, billing_period AS "billingPeriod", period_anchor AS "periodAnchor",
           current_period_end AS "currentPeriodEnd", trial_ends_at AS "trialEndsAt",
           provider_subscription_id AS "providerSubscriptionId", overage_enabled AS "overageEnabled",
           overage_cap_cents AS "overageCapCents"
    FROM platform_account_plans WHERE account_id = ${accountId} FOR UPDATE`;
  return rows[0] ?? null;
}

/**
 * The values (overage_enabled, overage_cap_cents) of a plan row the account starts now: its overage
 * choice from its billing settings, off and 0 without one, read by the INSERT itself rather than by a
 * query before it. Whether the plan offers overage is checked where the row is read (run-funding.ts,
 * usage.ts).
 */
const overageChoice = (accountId: number) => Prisma.sql`
  COALESCE((SELECT overage_enabled FROM platform_billing_settings WHERE account_id = ${accountId}), false),
  COALESCE((SELECT overage_cap_cents FROM platform_billing_settings WHERE account_id = ${accountId}), 0)`;

export interface PlanWrite {
  slug: string;
  billingPeriod: string;
  currentPeriodEnd: Date | null;
  trialEndsAt: Date | null;
  providerSubscriptionId: string | null;
}

/**
 * Puts the account on a plan. A new row starts a new window at `now` with the account's overage choice
 * (saveOverageChoice); another slug than the row's starts one with overage off (its cap was agreed for
 * another plan); the same slug only moves the period end (a renewal), so a repeated activation changes
 * nothing else.
 */
export async function upsertAccountPlan(prisma: PrismaClient, accountId: number, plan: PlanWrite, now: Date): Promise<void> {
  // One statement, so it is atomic alone and inside a caller's transaction (a payment's completion)
  // alike. The same slug again (a renewal) keeps its window, overage settings and, when not given,
  // trial and subscription; a new slug starts a fresh window with overage off.
  await prisma.$executeRaw`
    INSERT INTO platform_account_plans (account_id, slug, billing_period, period_anchor, current_period_end, trial_ends_at,
      provider_subscription_id, overage_enabled, overage_cap_cents, created_at, updated_at)
    VALUES (${accountId}, ${plan.slug}, ${plan.billingPeriod}, ${now}, ${plan.currentPeriodEnd}, ${plan.trialEndsAt ?? null},
      ${plan.providerSubscriptionId}, ${overageChoice(accountId)}, now(), now())
    ON CONFLICT (account_id) DO UPDATE SET
      billing_period = EXCLUDED.billing_period,
      current_period_end = EXCLUDED.current_period_end,
      period_anchor = CASE WHEN platform_account_plans.slug = EXCLUDED.slug THEN platform_account_plans.period_anchor ELSE EXCLUDED.period_anchor END,
      trial_ends_at = CASE WHEN platform_account_plans.slug = EXCLUDED.slug
        THEN COALESCE(EXCLUDED.trial_ends_at, platform_account_plans.trial_ends_at) ELSE EXCLUDED.trial_ends_at END,
      provider_subscription_id = CASE WHEN platform_account_plans.slug = EXCLUDED.slug
        THEN COALESCE(EXCLUDED.provider_subscription_id, platform_account_plans.provider_subscription_id)
        ELSE EXCLUDED.provider_subscription_id END,
      overage_enabled = platform_account_plans.overage_enabled AND platform_account_plans.slug = EXCLUDED.slug,
      overage_cap_cents = CASE WHEN platform_account_plans.slug = EXCLUDED.slug THEN platform_account_plans.overage_cap_cents ELSE 0 END,
      slug = EXCLUDED.slug,
      updated_at = now()`;
}

/** Creates the free plan's row only when the account has none; false when it had one. */
export async function insertPlanIfNone(prisma: PrismaClient, accountId: number, plan: PlanWrite, now: Date): Promise<boolean> {
  const inserted = await prisma.$executeRaw`
    INSERT INTO platform_account_plans (account_id, slug, billing_period, period_anchor, current_period_end, trial_ends_at,
      provider_subscription_id, overage_enabled, overage_cap_cents, created_at, updated_at)
    VALUES (${accountId}, ${plan.slug}, ${plan.billingPeriod}, ${now}, ${plan.currentPeriodEnd}, ${plan.trialEndsAt},
      ${plan.providerSubscriptionId}, ${overageChoice(accountId)}, now(), now())
    ON CONFLICT (account_id) DO NOTHING`;
  return inserted === 1;
}

/** Ends the plan the provider's subscription pays for; false when no plan of the account has it. */
export async function deletePlanOfSubscription(prisma: PrismaClient, accountId: number, providerSubscriptionId: string) {
  const deleted = await prisma.platformAccountPlan.deleteMany({ where: { accountId, providerSubscriptionId } });
  return deleted.count > 0;
}

export interface OverageChoice {
  enabled: boolean;
  capCents: number;
}

/** The account's last PATCH /billing/overage (kept on no plan too); off and 0 when it never made one. */
export async function findOverageChoice(prisma: PrismaClient, accountId: number): Promise<OverageChoice> {
  const row = await prisma.platformBillingSettings.findUnique({ where: { accountId }, select: { overageEnabled: true, overageCapCents: true } });
  return { enabled: row?.overageEnabled ?? false, capCents: row?.overageCapCents ?? 0 };
}

export const saveOverageChoice = (prisma: PrismaClient, accountId: number, choice: OverageChoice) =>
  prisma.platformBillingSettings.upsert({
    where: { accountId },
    create: { accountId, overageEnabled: choice.enabled, overageCapCents: choice.capCents },
    update: { overageEnabled: choice.enabled, overageCapCents: choice.capCents },
  });

export async function updateOverage(prisma: PrismaClient, accountId: number, enabled: boolean, capCents: number): Promise<boolean> {
  const updated = await prisma.platformAccountPlan.updateMany({
    where: { accountId },
    data: { overageEnabled: enabled, overageCapCents: capCents },
  });
  return updated.count === 1;
}

// ---------------------------------------------------------------------------------------------
// Run funding

export interface PlanWindowUse {
  /** Runs the plan's included runs covered in the window. */
  includedRuns: number;
  /** Runs covered as overage, and what they added to it. */
  overageRuns: number;
  overageCents: number;
}

/** What the plan covered in [since, until) (its current window). */
export async function planUseIn(prisma: PrismaClient, accountId: number, since: Date, until: Date): Promise<PlanWindowUse> {
  const rows = await prisma.$queryRaw<{ included: bigint; overage: bigint; cents: bigint }[]>`
    SELECT COUNT(*) FILTER (WHERE overage_cents = 0)::bigint AS included, COUNT(*) FILTER (WHERE overage_cents > 0)::bigint AS overage,
           COALESCE(SUM(overage_cents), 0)::bigint AS cents
    FROM platform_run_fundings
    WHERE account_id = ${accountId} AND meter = 'plan' AND created_at >= ${since} AND created_at < ${until}`;
  const row = rows[0];
  return { includedRuns: Number(row?.included ?? 0), overageRuns: Number(row?.overage ?? 0), overageCents: Number(row?.cents ?? 0) };
}

export interface PlanAdmissionRead {
  row: AccountPlanRow;
  /** The account's runs in progress (countActiveRuns). */
  activeRuns: number;
  /** What the plan covered in the window asked for (planUseIn). */
  use: PlanWindowUse;
}

/**
 * The plan row, the runs in progress and the use in [since, until), without a lock, in one statement:
 * one snapshot, so the figures are all true at one moment. Null when the account has no plan.
 */
export async function readPlanAdmission(prisma: PrismaClient, accountId: number, since: Date, until: Date): Promise<PlanAdmissionRead | null> {
  const rows = await prisma.$queryRaw<(AccountPlanRow & { active: bigint; included: bigint; overage: bigint; cents: bigint })[]>`
    SELECT account_id AS "accountId", slug, billing_period AS "billingPeriod", period_anchor AS "periodAnchor",
           current_period_end AS "currentPeriodEnd", trial_ends_at AS "trialEndsAt",
           provider_subscription_id AS "providerSubscriptionId", overage_enabled AS "overageEnabled",
           overage_cap_cents AS "overageCapCents",
           (SELECT COUNT(*) FROM platform_runs WHERE account_id = ${accountId} AND status = ANY(${ACTIVE_STATUSES}::text[]))::bigint AS active,
           fundings.included, fundings.overage, fundings.cents
    FROM platform_account_plans,
      LATERAL (
        SELECT COUNT(*) FILTER (WHERE overage_cents = 0)::bigint AS included, COUNT(*) FILTER (WHERE overage_cents > 0)::bigint AS overage,
               COALESCE(SUM(overage_cents), 0)::bigint AS cents
        FROM platform_run_fundings
        WHERE account_id = ${accountId} AND meter = 'plan' AND created_at >= ${since} AND created_at < ${until}
      ) AS fundings
    WHERE account_id = ${accountId}`;
  const found = rows[0];
  if (!found) return null;
  const { active, included, overage, cents, ...row } = found;
  return {
    row,
    activeRuns: Number(active),
    use: { includedRuns: Number(included), overageRuns: Number(overage), overageCents: Number(cents) },
  };
}

/** The account's runs in progress (what a plan's max_concurrent_runs bounds). */
export const countActiveRuns = (prisma: PrismaClient, accountId: number) =>
  prisma.platformRun.count({ where: { accountId, status: { in: [...ACTIVE_STATUSES] } } });

/** The meter of a run (wallet when it has no funding row). */
export async function runMeter(prisma: PrismaClient, runId: number): Promise<string> {
  const row = await prisma.platformRunFunding.findUnique({ where: { runId }, select: { meter: true } });
  return row?.meter ?? "wallet";
}

export interface FundingWrite {
  runId: number;
  accountId: number;
  meter: string;
  planSlug: string | null;
  overageCents: number;
  at: Date;
}

export async function recordRunFunding(tx: Tx, funding: FundingWrite): Promise<void> {
  await tx.platformRunFunding.create({
    data: {
      runId: funding.runId,
      accountId: funding.accountId,
      meter: funding.meter,
      planSlug: funding.planSlug,
      overageCents: funding.overageCents,
      createdAt: funding.at,
    },
  });
}
