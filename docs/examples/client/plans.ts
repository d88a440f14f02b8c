import { ConflictError, listPlans, type PlatformClient } from "@inlay/core/platform-client";

export default async function plansExample(baseUrl: string, client: PlatformClient) {
  // #region docs
  const plans = await listPlans({ baseUrl }, { include_free: true }); // no key needed; or client.billing.plans()
  const usage = await client.billing.activateFree(); // only from no plan (prepaid); ConflictError otherwise
  let overage = usage;
  try {
    overage = await client.billing.setOverage({ enabled: true, monthly_cap_cents: 5_000 });
  } catch (error) {
    if (!(error instanceof ConflictError)) throw error; // the free plan has no overage
  }
  // #endregion
  return { plans, usage, overage };
}
