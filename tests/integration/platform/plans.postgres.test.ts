// A plan's limits under a race only PostgreSQL's concurrent connections can stage: many simultaneous
// run creations of one account, each admitted or refused under the plan row's lock, so exactly the
// plan's figure gets through (included runs, overage up to its cap, runs at once).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { activatePlan, type Plan } from "@/server/platform/services/plans";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";

const plan = (slug: Plan["slug"], fields: Partial<Plan>): Plan => ({
  slug,
  display_name: slug,
  included_runs: 5,
  monthly_price_cents: 1_000,
  annual_price_cents: 10_000,
  inference_mode: "platform",
  overage_available: false,
  overage_rate_cents: 0,
  fair_use_cost_limit_cents: 1_000,
  max_concurrent_runs: 1_000,
  ...fields,
});

let platform: PlatformHarness;
beforeAll(async () => {
  // web: nothing executes, so every admitted run stays in progress.
  platform = await startPlatform({
    role: "web",
    plans: {
      catalogue: [
        plan("individual", {}),
        plan("pro", { included_runs: 0, overage_available: true, overage_rate_cents: 10, monthly_price_cents: 2_000 }),
        plan("max_5x", { included_runs: -1, max_concurrent_runs: 3, monthly_price_cents: 3_000 }),
      ],
    },
  });
});
afterAll(() => platform.close());

async function race(slug: Plan["slug"], attempts: number, setup?: (account: Account) => Promise<void>) {
  const account = await platform.signup();
  await activatePlan(platform.database.prisma, account.id, { slug, billingPeriod: "monthly" });
  await setup?.(account);
  const agentId = (await platform.call("/agents", { key: account.key, body: { name: "Racer", user_id: "u1" } })).body.id;
  const results = await Promise.all(
    Array.from({ length: attempts }, (_, index) =>
      platform.call("/runs", {
        key: account.key,
        query: { user_id: "u1" },
        body: { teammate_id: agentId, message: `race ${index}`, stream: false },
      }),
    ),
  );
  const statuses = results.map((result) => result.status);
  const codes = results.filter((result) => result.status !== 200).map((result) => result.body.error.error_code);
  return { account, admitted: statuses.filter((status) => status === 200).length, statuses, codes };
}

describe("plan limits under simultaneous run creation", () => {
  it("admits exactly the included runs", async () => {
    const { account, admitted, codes } = await race("individual", 16);
    expect(admitted).toBe(5);
    expect(new Set(codes)).toEqual(new Set(["RUN_LIMIT_REACHED"]));
    expect(await platform.database.prisma.platformRunFunding.count({ where: { accountId: account.id, meter: "plan" } })).toBe(5);
    expect(await platform.database.prisma.platformRun.count({ where: { accountId: account.id } })).toBe(5);
  });

  it("stops overage exactly at the cap", async () => {
    const { account, admitted, codes } = await race("pro", 12, async (account) => {
      const set = await platform.call("/billing/overage", { key: account.key, method: "PATCH", body: { enabled: true, monthly_cap_cents: 45 } });
      expect(set.status).toBe(200);
    });
    expect(admitted).toBe(4);
    expect(new Set(codes)).toEqual(new Set(["RUN_LIMIT_REACHED"]));
    expect((await platform.call("/usage", { key: account.key })).body).toMatchObject({ runs_used: 4, overage_used_cents: 40 });
  });

  it("admits exactly max_concurrent_runs at once", async () => {
    const { admitted, codes } = await race("max_5x", 12);
    expect(admitted).toBe(3);
    expect(new Set(codes)).toEqual(new Set(["CONCURRENT_RUN_LIMIT_REACHED"]));
  });
});
