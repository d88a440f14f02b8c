// Plans: the catalogue an operator configures and the plan an account is on. A plan covers a number of
// runs per monthly window (the account's balance pays for nothing while it does); past them, opt-in
// overage up to the account's monthly cap, then RUN_LIMIT_REACHED. No plan: prepaid (the balance).
// Payments (checkout, renewal, cancellation) call activatePlan and endPlan; the decision of which meter
// pays a run is services/runs/run-funding.ts.
import { readFileSync } from "node:fs";
import { z } from "zod";
import { PlanCatalogEntry } from "@inlay/core/schemas/billing";
import type { Db } from "../../repositories/db";
import { PlatformError } from "../../errors";
import {
  type AccountPlanRow,
  deletePlanOfSubscription,
  findAccountPlan,
  insertPlanIfNone,
  saveOverageChoice,
  updateOverage,
  upsertAccountPlan,
} from "../../repositories/plans";

export type Plan = z.infer<typeof PlanCatalogEntry>;
export type BillingPeriod = "monthly" | "annual";

/** included_runs of a plan whose runs are not counted against a limit (unlimited_runs). */
export const UNLIMITED_RUNS = -1;

/** The catalogue when the operator gives none (INLAY_PLANS_FILE). Prices in US cents. */
export const DEFAULT_PLANS: Plan[] = [
  {
    slug: "free",
    display_name: "Free",
    included_runs: 50,
    monthly_price_cents: 0,
    annual_price_cents: 0,
    inference_mode: "platform",
    overage_available: false,
    overage_rate_cents: 0,
    fair_use_cost_limit_cents: 500,
    max_concurrent_runs: 1,
  },
  {
    slug: "individual",
    display_name: "Individual",
    included_runs: 500,
    monthly_price_cents: 2_000,
    annual_price_cents: 20_000,
    inference_mode: "platform",
    overage_available: true,
    overage_rate_cents: 10,
    fair_use_cost_limit_cents: 5_000,
    max_concurrent_runs: 2,
  },
  {
    slug: "pro",
    display_name: "Pro",
    included_runs: 2_000,
    monthly_price_cents: 5_000,
    annual_price_cents: 50_000,
    inference_mode: "platform",
    overage_available: true,
    overage_rate_cents: 8,
    fair_use_cost_limit_cents: 20_000,
    max_concurrent_runs: 5,
  },
  {
    slug: "max_5x",
    display_name: "Max 5x",
    included_runs: 10_000,
    monthly_price_cents: 10_000,
    annual_price_cents: 100_000,
    inference_mode: "platform",
    overage_available: true,
    overage_rate_cents: 6,
    fair_use_cost_limit_cents: 100_000,
    max_concurrent_runs: 10,
  },
  {
    slug: "max_20x",
    display_name: "Max 20x",
    included_runs: 40_000,
    monthly_price_cents: 20_000,
    annual_price_cents: 200_000,
    inference_mode: "platform",
    overage_available: true,
    overage_rate_cents: 5,
    fair_use_cost_limit_cents: 400_000,
    max_concurrent_runs: 25,
  },
];

const count = (min: number) => z.number().int().min(min).max(1_000_000_000);

/** An entry of the operator's file: the contract's fields, all required, with their ranges. */
const OperatorPlan = PlanCatalogEntry.extend({
  display_name: z.string().trim().min(1).max(255),
  included_runs: count(UNLIMITED_RUNS),
  monthly_price_cents: count(0),
  annual_price_cents: count(0),
  overage_rate_cents: count(0),
  fair_use_cost_limit_cents: count(0),
  max_concurrent_runs: count(1),
}).strict();

const OperatorCatalogue = z
  .array(OperatorPlan)
  .min(1)
  .superRefine((plans, ctx) => {
    const seen = new Set<string>();
    plans.forEach((plan, index) => {
      if (seen.has(plan.slug)) ctx.addIssue({ code: "custom", path: [index, "slug"], message: `"${plan.slug}" is listed twice` });
      seen.add(plan.slug);
      if (plan.slug === "free" && (plan.monthly_price_cents !== 0 || plan.annual_price_cents !== 0)) {
        ctx.addIssue({ code: "custom", path: [index], message: "the free plan must cost nothing" });
      }
      if (plan.overage_available && plan.overage_rate_cents === 0) {
        ctx.addIssue({ code: "custom", path: [index, "overage_rate_cents"], message: "must be positive when overage_available" });
      }
    });
  });

const cheapestFirst = (plans: Plan[]) =>
  [...plans].sort((a, b) => a.monthly_price_cents - b.monthly_price_cents || a.included_runs - b.included_runs);

/**
 * The catalogue of the operator's plans file (a JSON array of complete entries, which replaces the
 * defaults), or the defaults. Throws a message naming the file and the entry's place on a mistake.
 */
export function loadPlanCatalogue(file?: string): Plan[] {
  if (file === undefined) return cheapestFirst(DEFAULT_PLANS);
  let content: unknown;
  try {
    content = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new Error(`INLAY_PLANS_FILE ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const parsed = OperatorCatalogue.safeParse(content);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `[${issue.path.join(".")}] ${issue.message}`).join("; ");
    throw new Error(`INLAY_PLANS_FILE ${file}: ${issues}`);
  }
  return cheapestFirst(parsed.data);
}

// One catalogue per process, set at start (createPlatformDeps) from config.plans.
let catalogue: Plan[] = cheapestFirst(DEFAULT_PLANS);

/** Replaces the process's catalogue (at start; tests restore it). */
export function setPlanCatalogue(plans: Plan[]): void {
  catalogue = cheapestFirst(plans);
}

/** The catalogue, cheapest first. */
export function planCatalogue(): Plan[] {
  return catalogue;
}

export function findPlan(slug: string): Plan | undefined {
  return planCatalogue().find((plan) => plan.slug === slug);
}

/** GET /billing/plans: the purchasable plans; the free one too with include_free. */
export const listPlans = (includeFree: boolean) => planCatalogue().filter((plan) => includeFree || plan.slug !== "free");

export interface PlanActivation {
  slug: Plan["slug"];
  billingPeriod: BillingPeriod;
  /** The payment provider's subscription, when one pays for the plan. */
  providerSubscriptionId?: string;
  /** When the paid period ends; the provider's renewal moves it on. */
  currentPeriodEnd?: Date;
  /** The end of a trial the provider granted. */
  trialEndsAt?: Date;
}

function knownPlan(slug: string): Plan {
  const plan = findPlan(slug);
  if (!plan) throw new PlatformError({ type: "validation_error", message: `plan: "${slug}" is not in the plan catalogue`, details: { fields: [{ field: "plan", message: "is not in the plan catalogue" }] } });
  return plan;
}

/** Puts the account on a plan (a completed checkout, a renewal, activate-free). Idempotent. */
export async function activatePlan(prisma: Db, accountId: number, activation: PlanActivation, now = new Date()): Promise<void> {
  knownPlan(activation.slug);
  await upsertAccountPlan(
    prisma,
    accountId,
    {
      slug: activation.slug,
      billingPeriod: activation.billingPeriod,
      currentPeriodEnd: activation.currentPeriodEnd ?? null,
      trialEndsAt: activation.trialEndsAt ?? null,
      providerSubscriptionId: activation.providerSubscriptionId ?? null,
    },
    now,
  );
}

/** Ends a paid plan (the provider cancelled the subscription): the account falls back to prepaid. */
export async function endPlan(prisma: Db, accountId: number, providerSubscriptionId: string): Promise<void> {
  // Idempotent: a repeated cancellation, or one of a subscription since replaced, ends nothing.
  await deletePlanOfSubscription(prisma, accountId, providerSubscriptionId);
}

/** The free plan is open to an account on no plan (prepaid), when the catalogue offers it. */
export const freePathAvailable = (plan: AccountPlanRow | null) => plan === null && findPlan("free") !== undefined;

/** POST /billing/activate-free: prepaid → free. 409 from any plan (free included); 409 when not offered. */
export async function activateFree(prisma: Db, accountId: number, now = new Date()): Promise<void> {
  if (!findPlan("free")) {
    throw new PlatformError({ type: "conflict_error", message: "this deployment offers no free plan (GET /billing/plans?include_free=true)" });
  }
  const inserted = await insertPlanIfNone(
    prisma,
    accountId,
    { slug: "free", billingPeriod: "monthly", currentPeriodEnd: null, trialEndsAt: null, providerSubscriptionId: null },
    now,
  );
  if (!inserted) {
    const current = await findAccountPlan(prisma, accountId);
    throw new PlatformError({
      type: "conflict_error",
      message: `the account is already on the ${current?.slug ?? "a"} plan; the free plan is only open to an account on no plan`,
      details: { plan: current?.slug ?? null },
    });
  }
}

/**
 * PATCH /billing/overage. The choice is the account's: kept with its billing settings, on no plan too
 * (the spec answers the Usage resource either way), and taken by the plan it starts next
 * (upsertAccountPlan). On a plan it applies at once; a plan without overage refuses it with 409.
 */
export async function setOverage(prisma: Db, accountId: number, input: { enabled: boolean; monthly_cap_cents: number }) {
  const current = await findAccountPlan(prisma, accountId);
  const plan = current ? findPlan(current.slug) : undefined;
  if (plan && !plan.overage_available && input.enabled) {
    throw new PlatformError({
      type: "conflict_error",
      message: `the ${plan.slug} plan has no overage (overage_available is false in GET /billing/plans)`,
      details: { plan: plan.slug },
    });
  }
  await saveOverageChoice(prisma, accountId, { enabled: input.enabled, capCents: input.monthly_cap_cents });
  if (current) await updateOverage(prisma, accountId, input.enabled, input.monthly_cap_cents);
}

// ---------------------------------------------------------------------------------------------
// Windows

const addUtcMonths = (date: Date, months: number) => {
  const result = new Date(date.getTime());
  const day = result.getUTCDate();
  result.setUTCDate(1);
  result.setUTCMonth(result.getUTCMonth() + months);
  // The 31st of a shorter month is its last day.
  const last = new Date(Date.UTC(result.getUTCFullYear(), result.getUTCMonth() + 1, 0)).getUTCDate();
  result.setUTCDate(Math.min(day, last));
  return result;
};

/** The monthly window of a plan's included runs and overage cap that `now` is in (from its anchor). */
export function planWindow(anchor: Date, now: Date): { start: Date; end: Date } {
  let months =
    (now.getUTCFullYear() - anchor.getUTCFullYear()) * 12 + (now.getUTCMonth() - anchor.getUTCMonth());
  if (addUtcMonths(anchor, months) > now) months -= 1;
  if (months < 0) months = 0;
  return { start: addUtcMonths(anchor, months), end: addUtcMonths(anchor, months + 1) };
}
