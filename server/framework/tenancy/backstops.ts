// The platform's per-end-user settings as an account-wide backstop behind the framework's own limits.
// One platform account serves every tenant, so a setting must let through the most any member of any
// tenant may legitimately use, or it would refuse runs the framework admitted:
//
//   per_end_user_run_limit        = max over tenants of runs_per_month (a member's cap never exceeds it)
//   per_end_user_cost_limit_cents = max over tenants of cost_per_month_cents
//   per_end_user_rate_per_minute  = max over tenants of turns_per_minute_per_member
//
// and null (no cap) as soon as one tenant has no such limit. The framework's counters stay the real
// enforcement; the backstop catches a framework bug or a leaked key used outside the framework.
import type { SettingsUpdateParams } from "@inlay/core/platform-client";
import type { Db } from "@/server/shared/db";
import { logger } from "@/lib/logger";
import type { PlatformConnection } from "./platform-connection";
import { listAllTenantLimits } from "./platform-repository";

const loosest = (values: (number | null)[]): number | null =>
  values.length === 0 || values.some((value) => value === null) ? null : Math.max(...(values as number[]));

export async function computeBackstops(prisma: Db): Promise<SettingsUpdateParams> {
  const limits = await listAllTenantLimits(prisma);
  const rate = loosest(limits.map((each) => each.turnsPerMinutePerMember));
  return {
    per_end_user_run_limit: loosest(limits.map((each) => each.runsPerMonth)),
    per_end_user_cost_limit_cents: loosest(limits.map((each) => each.costPerMonthCents)),
    // The platform's rate cap is at least 1 when set.
    per_end_user_rate_per_minute: rate === null ? null : Math.max(rate, 1),
  };
}

/**
 * Pushes the backstops with PATCH /settings. A failure is logged, not thrown: the owner's change to
 * the tenant's limits is already saved and enforced by the framework.
 */
export async function pushPlatformBackstops(prisma: Db, connection: () => Promise<PlatformConnection>): Promise<boolean> {
  try {
    const settings = await computeBackstops(prisma);
    await (await connection()).client.settings.update(settings);
    return true;
  } catch (error) {
    logger.warn({ err: error instanceof Error ? error.message : String(error) }, "could not update the platform's per-end-user backstops");
    return false;
  }
}
