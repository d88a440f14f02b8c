// Plans: the catalogue an operator configures and the plan an account is on. A plan covers a number of
// runs per billing period (the account's balance pays for nothing while it does); past it, opt-in overage
// or the balance. SKELETON: the plans-and-usage work fills this in; payments call activatePlan.
import type { z } from "zod";
import type { PlanCatalogEntry } from "@/lib/schemas/billing";
import type { PrismaClient } from "@/server/generated/prisma/client";

export type Plan = z.infer<typeof PlanCatalogEntry>;
export type BillingPeriod = "monthly" | "annual";

/** The catalogue, cheapest first. */
export function planCatalogue(): Plan[] {
  throw new Error("planCatalogue: not built yet");
}

export function findPlan(slug: string): Plan | undefined {
  return planCatalogue().find((plan) => plan.slug === slug);
}

export interface PlanActivation {
  slug: Plan["slug"];
  billingPeriod: BillingPeriod;
  /** The payment provider's subscription, when one pays for the plan. */
  providerSubscriptionId?: string;
  /** When the paid period ends; the provider's renewal moves it on. */
  currentPeriodEnd?: Date;
}

/** Puts the account on a plan (a completed checkout, a renewal, activate-free). Idempotent. */
export async function activatePlan(_prisma: PrismaClient, _accountId: number, _activation: PlanActivation): Promise<void> {
  throw new Error("activatePlan: not built yet");
}

/** Ends a paid plan (the provider cancelled the subscription): the account falls back to prepaid. */
export async function endPlan(_prisma: PrismaClient, _accountId: number, _providerSubscriptionId: string): Promise<void> {
  throw new Error("endPlan: not built yet");
}
