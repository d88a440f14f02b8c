// Plans over real HTTP: the catalogue (defaults, the operator's file, include_free, no auth), the plan an
// account is on as GET /usage reports it, activate-free, PATCH /billing/overage, and enforcement at
// admission (included runs, overage up to its cap, concurrency), and the meter each run settles on.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PrismaClient } from "@/server/generated/prisma/client";
import { PlatformError } from "@/server/platform/errors";
import { addBalanceEntry } from "@/server/platform/services/billing/billing";
import { decideFunding, type FundingRequest, refusePlanOnRead } from "@/server/platform/services/runs/run-funding";
import {
  activatePlan,
  DEFAULT_PLANS,
  endPlan,
  loadPlanCatalogue,
  type Plan,
  planCatalogue,
  planWindow,
  setPlanCatalogue,
} from "@/server/platform/services/billing/plans";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";

// Small figures, so limits are reached in a few runs. One catalogue per process: every harness here has it.
const entry = (slug: Plan["slug"], fields: Partial<Plan>): Plan => ({
  slug,
  display_name: slug,
  included_runs: 2,
  monthly_price_cents: 1_000,
  annual_price_cents: 10_000,
  inference_mode: "platform",
  overage_available: true,
  overage_rate_cents: 10,
  fair_use_cost_limit_cents: 1_000,
  max_concurrent_runs: 10,
  ...fields,
});
const CATALOGUE: Plan[] = [
  entry("free", { included_runs: 2, monthly_price_cents: 0, annual_price_cents: 0, overage_available: false, overage_rate_cents: 0, max_concurrent_runs: 1 }),
  entry("individual", {}),
  entry("pro", { included_runs: -1, monthly_price_cents: 5_000, max_concurrent_runs: 2 }),
];

// Accounts require an end-user on runs by default.
const USER = "u1";

// `all` executes runs (meters); `web` executes nothing, so every run it starts stays in progress.
let executing: PlatformHarness;
let idle: PlatformHarness;

beforeAll(async () => {
  executing = await startPlatform({ plans: { catalogue: CATALOGUE } });
  idle = await startPlatform({ role: "web", plans: { catalogue: CATALOGUE } });
}, 60_000);
afterAll(async () => {
  await executing.close();
  await idle.close();
});

async function agentOf(platform: PlatformHarness, account: Account) {
  return (await platform.call("/agents", { key: account.key, body: { name: "Planner", user_id: USER } })).body.id as number;
}

const startRun = (platform: PlatformHarness, account: Account, agentId: number, message = "hello") =>
  platform.call("/runs", {
    key: account.key,
    query: { user_id: USER },
    body: { teammate_id: agentId, message, stream: false, permission_mode: "autonomous" },
  });

async function runToEnd(platform: PlatformHarness, account: Account, agentId: number) {
  const started = await startRun(platform, account, agentId, "::words 20");
  expect(started.status).toBe(200);
  const run = await platform.waitForRun(account.key, started.body.id, ["completed", "failed", "cancelled", "awaiting_approval"], { user_id: USER });
  expect(run.status).toBe("completed");
  return run;
}

const usage = async (platform: PlatformHarness, account: Account) => (await platform.call("/usage", { key: account.key })).body;

describe("GET /billing/plans", () => {
  it("lists the purchasable plans without a key, cheapest first; the free plan only with include_free", async () => {
    const listed = await executing.call("/billing/plans");
    expect(listed.status).toBe(200);
    expect(listed.body.map((plan: Plan) => plan.slug)).toEqual(["individual", "pro"]);
    expect(listed.body[0]).toEqual(CATALOGUE[1]);
    expect(listed.headers.get("x-ratelimit-limit")).not.toBeNull();
    const all = await executing.call("/billing/plans", { query: { include_free: "true" } });
    expect(all.body.map((plan: Plan) => plan.slug)).toEqual(["free", "individual", "pro"]);
    expect((await executing.call("/billing/plans", { query: { include_free: "false" } })).body).toHaveLength(2);
    const bad = await executing.call("/billing/plans", { query: { include_free: "maybe" } });
    expect(bad.status).toBe(422);
    expect(JSON.stringify(bad.body.error)).toContain("include_free");
  });

  it("defaults to the spec's five slugs with every field", () => {
    const defaults = loadPlanCatalogue();
    expect(defaults.map((plan) => plan.slug)).toEqual(["free", "individual", "pro", "max_5x", "max_20x"]);
    for (const plan of defaults) {
      expect(Object.keys(plan).sort()).toEqual(Object.keys(CATALOGUE[0]!).sort());
      expect(plan.max_concurrent_runs).toBeGreaterThan(0);
    }
    expect(defaults).toEqual(DEFAULT_PLANS);
  });

  it("takes the operator's file (INLAY_PLANS_FILE), and refuses a wrong one naming the file and the field", async () => {
    const dir = mkdtempSync(join(tmpdir(), "inlay-plans-"));
    const good = join(dir, "plans.json");
    const custom = [entry("max_5x", { display_name: "Team", monthly_price_cents: 9_900 }), entry("individual", { monthly_price_cents: 900 })];
    writeFileSync(good, JSON.stringify(custom));
    const operator = await startPlatform({ plans: { file: good } });
    try {
      const listed = await operator.call("/billing/plans", { query: { include_free: "true" } });
      expect(listed.body.map((plan: Plan) => plan.display_name)).toEqual(["individual", "Team"]);
    } finally {
      await operator.close();
      setPlanCatalogue(CATALOGUE);
    }
    const wrong = (content: unknown) => {
      const file = join(dir, `wrong-${Math.random()}.json`);
      writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content));
      return () => loadPlanCatalogue(file);
    };
    expect(wrong("{not json")).toThrow(/INLAY_PLANS_FILE .*wrong-/);
    expect(wrong([{ ...custom[0], max_concurrent_runs: 0 }])).toThrow(/\[0\.max_concurrent_runs\]/);
    expect(wrong([{ ...custom[0], slug: "gold" }])).toThrow(/\[0\.slug\]/);
    expect(wrong([custom[0], custom[0]])).toThrow(/listed twice/);
    expect(wrong([{ ...custom[0], extra: 1 }])).toThrow(/extra/);
    expect(wrong([entry("free", { monthly_price_cents: 100 })])).toThrow(/free plan must cost nothing/);
    expect(wrong([])).toThrow(/INLAY_PLANS_FILE/);
    expect(() => loadPlanCatalogue(join(dir, "missing.json"))).toThrow(/INLAY_PLANS_FILE .*missing\.json/);
    expect(planCatalogue()).toEqual(CATALOGUE);
  });
});

describe("the account's plan in GET /usage, and POST /billing/activate-free", () => {
  it("is prepaid with no plan, the free path open", async () => {
    const account = await executing.signup();
    const body = await usage(executing, account);
    expect(body).toMatchObject({
      plan: "prepaid",
      runs_limit: null,
      unlimited_runs: true,
      concurrent_runs_limit: null,
      free_path_available: true,
      overage_enabled: false,
      trial_ends_at: null,
    });
    expect(body.note).toContain("prepaid");
  });

  it("activates the free plan once, from no plan only", async () => {
    const account = await executing.signup();
    const before = Date.now();
    const activated = await executing.call("/billing/activate-free", { key: account.key, method: "POST" });
    expect(activated.status).toBe(200);
    const window = planWindow(new Date(before), new Date(before));
    expect(activated.body).toMatchObject({
      plan: "free",
      runs_used: 0,
      runs_limit: 2,
      cost_limit: "10.000000",
      free_path_available: false,
      overage_enabled: false,
      overage_used_cents: 0,
      overage_cap_cents: 0,
      overage_rate_cents: 0,
      unlimited_runs: false,
      concurrent_runs: 0,
      concurrent_runs_limit: 1,
      balance_micros: 5_000_000,
    });
    // The window starts at the activation and lasts a month.
    const start = Date.parse(activated.body.period_start);
    expect(start).toBeGreaterThanOrEqual(before - 5);
    expect(Date.parse(activated.body.period_end) - start).toBe(window.end.getTime() - window.start.getTime());
    const again = await executing.call("/billing/activate-free", { key: account.key, method: "POST" });
    expect(again.status).toBe(409);
    expect(again.body.error.message).toContain("already on the free plan");
    expect((await executing.call("/billing/activate-free", { method: "POST" })).status).toBe(401);
  });

  it("reports a paid plan (activatePlan, as payments call it) and falls back to prepaid when it ends", async () => {
    const account = await executing.signup();
    const trialEndsAt = new Date(Date.now() + 7 * 86_400_000);
    await activatePlan(executing.database.prisma, account.id, {
      slug: "individual",
      billingPeriod: "annual",
      providerSubscriptionId: "sub_123",
      currentPeriodEnd: new Date(Date.now() + 365 * 86_400_000),
      trialEndsAt,
    });
    // Idempotent: a repeated activation (a webhook delivered twice) changes nothing.
    await activatePlan(executing.database.prisma, account.id, { slug: "individual", billingPeriod: "annual", providerSubscriptionId: "sub_123" });
    expect(await usage(executing, account)).toMatchObject({
      plan: "individual",
      runs_limit: 2,
      unlimited_runs: false,
      concurrent_runs_limit: 10,
      overage_rate_cents: 10,
      overage_enabled: false,
      trial_ends_at: trialEndsAt.toISOString(),
      free_path_available: false,
    });
    const refused = await executing.call("/billing/activate-free", { key: account.key, method: "POST" });
    expect(refused.status).toBe(409);
    expect(refused.body.error.details.plan).toBe("individual");
    await endPlan(executing.database.prisma, account.id, "sub_other");
    expect((await usage(executing, account)).plan).toBe("individual");
    await endPlan(executing.database.prisma, account.id, "sub_123");
    expect(await usage(executing, account)).toMatchObject({ plan: "prepaid", free_path_available: true });
  });

  it("reports an unlimited plan", async () => {
    const account = await executing.signup();
    await activatePlan(executing.database.prisma, account.id, { slug: "pro", billingPeriod: "monthly" });
    expect(await usage(executing, account)).toMatchObject({ plan: "pro", runs_limit: null, unlimited_runs: true, concurrent_runs_limit: 2 });
  });
});

describe("PATCH /billing/overage", () => {
  const patch = (account: Account, body: unknown) => executing.call("/billing/overage", { key: account.key, method: "PATCH", body });

  it("validates every field with 422 naming it", async () => {
    const account = await executing.signup();
    for (const [body, field] of [
      [{ monthly_cap_cents: 100 }, "enabled"],
      [{ enabled: "yes", monthly_cap_cents: 100 }, "enabled"],
      [{ enabled: true }, "monthly_cap_cents"],
      [{ enabled: true, monthly_cap_cents: -1 }, "monthly_cap_cents"],
      [{ enabled: true, monthly_cap_cents: 1_000_001 }, "monthly_cap_cents"],
      [{ enabled: true, monthly_cap_cents: 1.5 }, "monthly_cap_cents"],
      [{ enabled: true, monthly_cap_cents: "100" }, "monthly_cap_cents"],
    ] as const) {
      const { status, body: error } = await patch(account, body);
      expect(status, JSON.stringify(body)).toBe(422);
      expect(error.error.details.fields.map((f: { field: string }) => f.field)).toContain(field);
    }
  });

  it("on no plan, stores the choice and answers the Usage resource; a plan that starts takes it", async () => {
    const account = await executing.signup();
    const stored = await patch(account, { enabled: true, monthly_cap_cents: 500 });
    expect(stored.status, JSON.stringify(stored.body)).toBe(200);
    expect(stored.body).toMatchObject({ plan: "prepaid", overage_enabled: true, overage_cap_cents: 500, overage_used_cents: 0 });
    expect(await usage(executing, account)).toMatchObject({ plan: "prepaid", overage_enabled: true, overage_cap_cents: 500 });
    await activatePlan(executing.database.prisma, account.id, { slug: "individual", billingPeriod: "monthly" });
    expect(await usage(executing, account)).toMatchObject({ plan: "individual", overage_enabled: true, overage_cap_cents: 500, overage_rate_cents: 10 });
    // What admission reads.
    expect(await executing.database.prisma.platformAccountPlan.findUniqueOrThrow({ where: { accountId: account.id } })).toMatchObject({
      overageEnabled: true,
      overageCapCents: 500,
    });

    // Turned off again before a plan, the plan starts without it; the free plan has no overage at all.
    const off = await executing.signup();
    await patch(off, { enabled: true, monthly_cap_cents: 300 });
    expect((await patch(off, { enabled: false, monthly_cap_cents: 0 })).body).toMatchObject({ plan: "prepaid", overage_enabled: false, overage_cap_cents: 0 });
    await activatePlan(executing.database.prisma, off.id, { slug: "individual", billingPeriod: "monthly" });
    expect(await usage(executing, off)).toMatchObject({ plan: "individual", overage_enabled: false, overage_cap_cents: 0 });
    const free = await executing.signup();
    await patch(free, { enabled: true, monthly_cap_cents: 300 });
    expect((await executing.call("/billing/activate-free", { key: free.key, method: "POST" })).status).toBe(200);
    expect(await usage(executing, free)).toMatchObject({ plan: "free", overage_enabled: false, overage_rate_cents: 0 });
  });

  it("is refused on a plan without overage, and set on one with it", async () => {
    const account = await executing.signup();
    await executing.call("/billing/activate-free", { key: account.key, method: "POST" });
    const free = await patch(account, { enabled: true, monthly_cap_cents: 500 });
    expect(free.status).toBe(409);
    expect(free.body.error.message).toContain("no overage");
    const paid = await executing.signup();
    await activatePlan(executing.database.prisma, paid.id, { slug: "individual", billingPeriod: "monthly" });
    const set = await patch(paid, { enabled: true, monthly_cap_cents: 1_000_000 });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ plan: "individual", overage_enabled: true, overage_cap_cents: 1_000_000, overage_rate_cents: 10 });
    const off = await patch(paid, { enabled: false, monthly_cap_cents: 0 });
    expect(off.body).toMatchObject({ overage_enabled: false, overage_cap_cents: 0 });
  });
});

describe("limits at admission", () => {
  it("refuses a run past the included runs with 402 RUN_LIMIT_REACHED, then runs overage up to the cap", async () => {
    const account = await idle.signup();
    const agentId = await agentOf(idle, account);
    await activatePlan(idle.database.prisma, account.id, { slug: "individual", billingPeriod: "monthly" });
    for (let i = 0; i < 2; i++) expect((await startRun(idle, account, agentId)).status).toBe(200);
    const refused = await startRun(idle, account, agentId);
    expect(refused.status).toBe(402);
    expect(refused.body.error.error_code).toBe("RUN_LIMIT_REACHED");
    expect(refused.body.error.message).toContain("overage is off");
    expect(refused.body.error.details).toMatchObject({ plan: "individual", runs_used: 2, runs_limit: 2 });

    // A cap of 25 cents at 10 cents a run: two more runs, not a third (it would make 30).
    const patched = await idle.call("/billing/overage", { key: account.key, method: "PATCH", body: { enabled: true, monthly_cap_cents: 25 } });
    expect(patched.status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await startRun(idle, account, agentId)).status).toBe(200);
    const capped = await startRun(idle, account, agentId);
    expect(capped.status).toBe(402);
    expect(capped.body.error.error_code).toBe("RUN_LIMIT_REACHED");
    expect(capped.body.error.details).toMatchObject({ overage_used_cents: 20, overage_cap_cents: 25 });
    expect(await usage(idle, account)).toMatchObject({
      runs_used: 4,
      runs_limit: 2,
      overage_enabled: true,
      overage_used_cents: 20,
      overage_cap_cents: 25,
      concurrent_runs: 4,
      concurrent_runs_limit: 10,
    });
    // A higher cap opens it again.
    await idle.call("/billing/overage", { key: account.key, method: "PATCH", body: { enabled: true, monthly_cap_cents: 30 } });
    expect((await startRun(idle, account, agentId)).status).toBe(200);
    // The balance pays for none of it: nothing held.
    const balance = (await idle.call("/billing/balance", { key: account.key })).body;
    expect(balance).toMatchObject({ balance_micros: 5_000_000, held_micros: 0 });
  });

  it("enforces max_concurrent_runs with 429 CONCURRENT_RUN_LIMIT_REACHED until a run ends", async () => {
    const account = await idle.signup();
    const agentId = await agentOf(idle, account);
    await activatePlan(idle.database.prisma, account.id, { slug: "pro", billingPeriod: "monthly" });
    const first = await startRun(idle, account, agentId);
    expect((await startRun(idle, account, agentId)).status).toBe(200);
    const refused = await startRun(idle, account, agentId);
    expect(refused.status).toBe(429);
    expect(refused.body.error.error_code).toBe("CONCURRENT_RUN_LIMIT_REACHED");
    expect(refused.body.error.details).toMatchObject({ concurrent_runs: 2, concurrent_runs_limit: 2 });
    expect(refused.headers.get("retry-after")).toBe("5");
    expect((await usage(idle, account)).concurrent_runs).toBe(2);
    expect((await idle.call(`/runs/${first.body.id}/cancel`, { key: account.key, method: "POST", query: { user_id: USER } })).status).toBe(200);
    expect((await startRun(idle, account, agentId)).status).toBe(200);
  });

  it("holds on the free plan too, and leaves prepaid accounts unlimited", async () => {
    const account = await idle.signup();
    const agentId = await agentOf(idle, account);
    await idle.call("/billing/activate-free", { key: account.key, method: "POST" });
    const first = await startRun(idle, account, agentId);
    expect(first.status).toBe(200);
    expect((await startRun(idle, account, agentId)).status).toBe(429);
    await idle.call(`/runs/${first.body.id}/cancel`, { key: account.key, method: "POST", query: { user_id: USER } });
    const second = await startRun(idle, account, agentId);
    expect(second.status).toBe(200);
    await idle.call(`/runs/${second.body.id}/cancel`, { key: account.key, method: "POST", query: { user_id: USER } });
    const third = await startRun(idle, account, agentId);
    expect(third.status).toBe(402);
    expect(third.body.error.message).toContain("has no overage");

    const prepaid = await idle.signup();
    const theirs = await agentOf(idle, prepaid);
    for (let i = 0; i < 4; i++) expect((await startRun(idle, prepaid, theirs)).status).toBe(200);
  });
});

describe("a plan's refusal on the unlocked read (refusePlanOnRead, before the plan row's lock)", () => {
  type Request = Omit<FundingRequest, "hasPlan">;
  const inTransaction = <T>(work: (tx: PrismaClient) => Promise<T>) =>
    idle.database.prisma.$transaction((tx) => work(tx as unknown as PrismaClient));
  // An error as the envelope shows it: everything the client sees of it.
  const shown = (error: unknown) =>
    error instanceof PlatformError
      ? { status: error.status, type: error.type, errorCode: error.errorCode, message: error.message, details: error.details, headers: error.headers }
      : error;
  const anchorOf = async (account: Account) =>
    (await idle.database.prisma.platformAccountPlan.findUniqueOrThrow({ where: { accountId: account.id } })).periodAnchor;
  /** The refusal the read proves, or "left to the lock". */
  const onRead = async (account: Account, request: Request, anchor?: Date, config = idle.config) => {
    const planAnchor = anchor ?? (await anchorOf(account));
    return inTransaction((tx) => refusePlanOnRead(tx, config, request, planAnchor, new Date())).then(
      () => "left to the lock",
      (error: unknown) => shown(error),
    );
  };
  /** What the locked path decides: the funding, or its refusal. */
  const underLock = (request: Request, config = idle.config) =>
    inTransaction((tx) => decideFunding(tx, config, { ...request, hasPlan: true }, new Date())).then(
      (funding) => funding,
      (error: unknown) => shown(error),
    );
  const start = (account: Account): Request => ({ accountId: account.id, kind: "start", model: "inlay/sim" });

  it("refuses with the locked path's error, body for body: included runs, the overage cap, runs at once", async () => {
    const account = await idle.signup();
    const agentId = await agentOf(idle, account);
    await activatePlan(idle.database.prisma, account.id, { slug: "individual", billingPeriod: "monthly" });
    for (let i = 0; i < 2; i++) expect((await startRun(idle, account, agentId)).status).toBe(200);
    const included = await onRead(account, start(account));
    expect(included).toMatchObject({ status: 402, errorCode: "RUN_LIMIT_REACHED", details: { runs_used: 2, overage_cap_cents: 0 } });
    expect(included).toEqual(await underLock(start(account)));

    await idle.call("/billing/overage", { key: account.key, method: "PATCH", body: { enabled: true, monthly_cap_cents: 15 } });
    expect(await onRead(account, start(account))).toBe("left to the lock");
    expect((await startRun(idle, account, agentId)).status).toBe(200);
    const capped = await onRead(account, start(account));
    expect(capped).toMatchObject({ status: 402, details: { runs_used: 3, overage_used_cents: 10, overage_cap_cents: 15 } });
    expect(capped).toEqual(await underLock(start(account)));

    const free = await idle.signup();
    await idle.call("/billing/activate-free", { key: free.key, method: "POST" });
    const running = await startRun(idle, free, await agentOf(idle, free));
    expect(running.status).toBe(200);
    const reply: Request = { accountId: free.id, kind: "reply", runId: running.body.id };
    for (const request of [start(free), reply]) {
      const atOnce = await onRead(free, request);
      expect(atOnce).toMatchObject({ status: 429, errorCode: "CONCURRENT_RUN_LIMIT_REACHED", headers: { "Retry-After": "5" } });
      expect(atOnce).toEqual(await underLock(request));
    }
  });

  it("leaves to the lock what the read does not prove", async () => {
    const account = await idle.signup();
    const agentId = await agentOf(idle, account);
    await activatePlan(idle.database.prisma, account.id, { slug: "individual", billingPeriod: "monthly" });
    const first = await startRun(idle, account, agentId);
    expect(await onRead(account, start(account))).toBe("left to the lock");
    expect(await underLock(start(account))).toMatchObject({ meter: "plan", overageCents: 0 });
    expect((await startRun(idle, account, agentId)).status).toBe(200);
    expect(await onRead(account, start(account))).toMatchObject({ errorCode: "RUN_LIMIT_REACHED" });

    // A reply counts no new run.
    const reply: Request = { accountId: account.id, kind: "reply", runId: first.body.id };
    expect(await onRead(account, reply)).toBe("left to the lock");
    expect(await underLock(reply)).toMatchObject({ meter: "plan" });
    // A plan changed since the admission's read (another anchor): its window may be another.
    expect(await onRead(account, start(account), new Date(Date.now() - 3_600_000))).toBe("left to the lock");
    // A start on the account's own model connection is not the plan's to count (with OpenAI's models listed).
    const openai = { ...idle.config, models: { ...idle.config.models, openaiConfigured: true } };
    const connected = await idle.call("/model-connections/openai", { key: account.key, method: "PUT", body: { api_key: "sk-own-openai-key-0123456789" } });
    expect(connected.status).toBe(200);
    const own: Request = { accountId: account.id, kind: "start", model: "gpt-4.1-mini" };
    expect(await onRead(account, own, undefined, openai)).toBe("left to the lock");
    expect(await underLock(own, openai)).toMatchObject({ meter: "own_sub" });
    expect(await onRead(account, start(account))).toMatchObject({ errorCode: "RUN_LIMIT_REACHED" });
  });
});

describe("meters in /usage/timeseries", () => {
  const series = async (account: Account, meter: string) =>
    Number((await executing.call("/usage/timeseries", { key: account.key, query: { settled_meter: meter } })).body.totals.cost_usd);

  it("settles a plan's runs on plan (the balance untouched), prepaid ones on wallet, uncovered ones on released", async () => {
    const onPlan = await executing.signup();
    await activatePlan(executing.database.prisma, onPlan.id, { slug: "pro", billingPeriod: "monthly" });
    const planRun = await runToEnd(executing, onPlan, await agentOf(executing, onPlan));
    const planCost = Number(planRun.usage.cost_usd);
    expect(planCost).toBeGreaterThan(0);
    expect(await series(onPlan, "plan")).toBe(planCost);
    expect(await series(onPlan, "wallet")).toBe(0);
    const balance = (await executing.call("/billing/balance", { key: onPlan.key })).body;
    expect(balance).toMatchObject({ balance_micros: 5_000_000, held_micros: 0 });
    expect(balance.transactions.filter((t: { type: string }) => t.type === "debit")).toEqual([]);
    expect(await usage(executing, onPlan)).toMatchObject({ runs_used: 1, cost_used: planCost.toFixed(6) });
    // A reply keeps its run's meter and counts no new run.
    const replied = await executing.call(`/runs/${planRun.id}/reply`, {
      key: onPlan.key,
      query: { user_id: USER },
      body: { message: "::words 5", stream: false },
    });
    expect(replied.status).toBe(200);
    const after = await executing.waitForRun(onPlan.key, planRun.id, ["completed", "failed", "cancelled", "awaiting_approval"], { user_id: USER });
    expect(after.status).toBe("completed");
    expect(Number(after.usage.cost_usd)).toBeGreaterThan(planCost);
    expect(await series(onPlan, "plan")).toBe(Number(after.usage.cost_usd));
    expect(await usage(executing, onPlan)).toMatchObject({ runs_used: 1 });
    expect((await executing.call("/billing/balance", { key: onPlan.key })).body).toMatchObject({ balance_micros: 5_000_000, held_micros: 0 });

    const prepaid = await executing.signup();
    const walletRun = await runToEnd(executing, prepaid, await agentOf(executing, prepaid));
    expect(await series(prepaid, "wallet")).toBe(Number(walletRun.usage.cost_usd));
    expect(await series(prepaid, "plan")).toBe(0);

    // A balance of one micro-USD cannot cover the run: its cost is written off and it settles as released.
    const poor = await executing.signup();
    await addBalanceEntry(executing.database.prisma, poor.id, { type: "adjustment", amountMicros: -4_999_999n, description: "test" });
    const poorRun = await runToEnd(executing, poor, await agentOf(executing, poor));
    expect(await series(poor, "released")).toBe(Number(poorRun.usage.cost_usd));
    expect(await series(poor, "wallet")).toBe(0);
    expect((await executing.call("/billing/balance", { key: poor.key })).body.balance_micros).toBe(0);
  });
});
