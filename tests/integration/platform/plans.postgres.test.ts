// A plan's limits under a race only PostgreSQL's concurrent connections can stage: many simultaneous
// run creations of one account, each admitted or refused under the plan row's lock, so exactly the
// plan's figure gets through (included runs, overage up to its cap, runs at once). And a refusal the
// unlocked read proves is answered while another transaction holds the plan row, which an admission
// waits for.
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { activatePlan, type Plan } from "@/server/platform/services/billing/plans";
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

const pool = () => (platform.database.driver as { kind: "postgres"; pool: pg.Pool }).pool;

/**
 * Resolves once some session waits for a lock the session `holder` holds (or, with `stop`, once it is
 * set). Only waits on the holder count: the platform's own background work (the job queue's advisory
 * locks) may wait for a lock of its own meanwhile.
 */
async function someoneWaitsForALock(holder: number, stop: { done?: boolean } = {}): Promise<void> {
  while (!stop.done) {
    // Outside any locking transaction, whose view of pg_stat_activity would not change.
    const { rows } = await pool().query<{ count: string }>(
      "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND $1 = ANY(pg_blocking_pids(pid))",
      [holder],
    );
    if (Number(rows[0]!.count) > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** An account on `slug` with `runs` runs started (all still in progress: the harness executes nothing). */
async function onPlanWithRuns(slug: Plan["slug"], runs: number) {
  const account = await platform.signup();
  await activatePlan(platform.database.prisma, account.id, { slug, billingPeriod: "monthly" });
  const agentId = (await platform.call("/agents", { key: account.key, body: { name: "Held", user_id: "u1" } })).body.id as number;
  const post = (headers: Record<string, string> = {}) =>
    platform.call("/runs", { key: account.key, query: { user_id: "u1" }, body: { teammate_id: agentId, message: "held", stream: false }, headers });
  for (let i = 0; i < runs; i++) expect((await post()).status).toBe(200);
  return { account, post };
}

/** Runs `work` while another transaction holds the account's plan row, as an admission in flight does. */
async function whilePlanRowHeld(accountId: number, work: (release: () => Promise<void>, holder: number) => Promise<void>) {
  const locker = await pool().connect();
  try {
    await locker.query("BEGIN");
    await locker.query("SELECT account_id FROM platform_account_plans WHERE account_id = $1 FOR UPDATE", [accountId]);
    const { rows } = await locker.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
    await work(async () => {
      await locker.query("COMMIT");
    }, rows[0]!.pid);
  } finally {
    // A request left waiting must not outlive the test: its lock goes with the rollback.
    await locker.query("ROLLBACK").catch(() => undefined);
    locker.release();
  }
}

describe("a plan's refusal while the plan row is held", () => {
  it.each<{ name: string; slug: Plan["slug"]; runs: number; status: number; code: string; headers: Record<string, string> }>([
    { name: "429 at max_concurrent_runs", slug: "max_5x", runs: 3, status: 429, code: "CONCURRENT_RUN_LIMIT_REACHED", headers: {} },
    { name: "402 past the included runs", slug: "individual", runs: 5, status: 402, code: "RUN_LIMIT_REACHED", headers: {} },
    {
      name: "402 past the included runs, with an Idempotency-Key",
      slug: "individual",
      runs: 5,
      status: 402,
      code: "RUN_LIMIT_REACHED",
      headers: { "idempotency-key": "refused-1" },
    },
  ])("is answered without waiting for the lock ($name)", async ({ slug, runs, status, code, headers }) => {
    const { account, post } = await onPlanWithRuns(slug, runs);
    await whilePlanRowHeld(account.id, async (release, holder) => {
      const posting = post(headers);
      const watching: { done?: boolean } = {};
      const first = await Promise.race([posting, someoneWaitsForALock(holder, watching).then(() => "waited" as const)]);
      watching.done = true;
      if (first === "waited") throw new Error("the refusal waited for the plan row's lock");
      expect(first.status).toBe(status);
      expect(first.body.error.error_code).toBe(code);
      await release();
    });
    expect(await platform.database.prisma.platformRun.count({ where: { accountId: account.id } })).toBe(runs);
    expect(await platform.database.prisma.platformIdempotencyKey.count({ where: { accountId: account.id } })).toBe(0);
  });

  it("leaves an admission it would admit to the lock: it waits until the row is released", async () => {
    const { account, post } = await onPlanWithRuns("individual", 4);
    await whilePlanRowHeld(account.id, async (release, holder) => {
      const posting = post();
      const watching: { done?: boolean } = {};
      const first = await Promise.race([posting.then(() => "answered" as const), someoneWaitsForALock(holder, watching).then(() => "waits" as const)]);
      watching.done = true;
      expect(first).toBe("waits");
      await release();
      expect((await posting).status).toBe(200);
    });
    // The one place left is taken; the next is refused as before.
    expect((await post()).status).toBe(402);
  });
});
