// client.billing's plan methods against a real platform: the public catalogue (no key), activate-free,
// and overage with its 422 (naming the field) and 409.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConflictError, createPlatformClient, listPlans, ValidationError } from "@inlay/core/platform-client";
import { activatePlan } from "@/server/platform/services/billing/plans";
import { startPlatform, type PlatformHarness } from "../../helpers/platform";

let platform: PlatformHarness;
beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(() => platform.close());

describe("client.billing plans", () => {
  it("lists the catalogue without a key; include_free adds the free plan", async () => {
    const options = { baseUrl: platform.baseUrl };
    expect((await listPlans(options)).map((plan) => plan.slug)).toEqual(["individual", "pro", "max_5x", "max_20x"]);
    const all = await listPlans(options, { include_free: true });
    expect(all[0]).toMatchObject({ slug: "free", monthly_price_cents: 0, overage_available: false });
    const account = await platform.signup();
    const client = createPlatformClient({ baseUrl: platform.baseUrl, apiKey: account.key });
    expect(await client.billing.plans({ include_free: true })).toEqual(all);
  });

  it("activates the free plan once, and sets overage on a plan that has it", async () => {
    const account = await platform.signup();
    const client = createPlatformClient({ baseUrl: platform.baseUrl, apiKey: account.key });
    expect((await client.usage.get()).free_path_available).toBe(true);
    expect(await client.billing.activateFree()).toMatchObject({ plan: "free", free_path_available: false, concurrent_runs_limit: 1 });
    await expect(client.billing.activateFree()).rejects.toBeInstanceOf(ConflictError);
    await expect(client.billing.setOverage({ enabled: true, monthly_cap_cents: 100 })).rejects.toBeInstanceOf(ConflictError);

    await activatePlan(platform.database.prisma, account.id, { slug: "pro", billingPeriod: "monthly", providerSubscriptionId: "sub_client" });
    const usage = await client.billing.setOverage({ enabled: true, monthly_cap_cents: 2_500 });
    expect(usage).toMatchObject({ plan: "pro", overage_enabled: true, overage_cap_cents: 2_500 });
    const invalid = client.billing.setOverage({ enabled: true, monthly_cap_cents: 2_000_000 });
    await expect(invalid).rejects.toBeInstanceOf(ValidationError);
    await expect(invalid).rejects.toThrow(/monthly_cap_cents/);
  });
});
