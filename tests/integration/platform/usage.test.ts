// GET /usage, /usage/end-users and /usage/timeseries over real HTTP: what sim runs were metered at,
// every parameter, validation, and isolation between accounts and end-users.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";

let platform: PlatformHarness;
let account: Account;
let other: Account;
const agents: Record<string, number> = {};
const costs: Record<string, number> = {};
const tokens: Record<string, { input: number; output: number }> = {};

const micros = (usd: string) => Math.round(Number(usd) * 1_000_000);
const today = () => new Date().toISOString().slice(0, 10);
const daysBefore = (day: string, days: number) => new Date(Date.parse(`${day}T00:00:00Z`) - days * 86_400_000).toISOString().slice(0, 10);

async function runToEnd(key: string, userId: string, agentId: number, message: string) {
  const started = await platform.call("/runs", {
    key,
    query: { user_id: userId },
    body: { teammate_id: agentId, message, stream: false, permission_mode: "autonomous" },
  });
  expect(started.status).toBe(200);
  const run = await platform.waitForRun(key, started.body.id, ["completed", "failed", "cancelled", "awaiting_approval"], { user_id: userId });
  expect(run.status).toBe("completed");
  return run;
}

beforeAll(async () => {
  platform = await startPlatform();
  account = await platform.signup();
  other = await platform.signup();
  for (const userId of ["alice", "bob", "carol"]) {
    agents[userId] = (await platform.call("/agents", { key: account.key, body: { name: `Agent ${userId}`, user_id: userId } })).body.id;
  }
  for (const [userId, message] of [["alice", "first"], ["alice", "second message"], ["bob", "::words 40"]] as const) {
    const run = await runToEnd(account.key, userId, agents[userId]!, message);
    costs[userId] = (costs[userId] ?? 0) + micros(run.usage.cost_usd);
    const seen = tokens[userId] ?? { input: 0, output: 0 };
    tokens[userId] = { input: seen.input + run.usage.input_tokens, output: seen.output + run.usage.output_tokens };
  }
  // The other account spends too, and has an end-user called alice as well.
  const theirAgent = (await platform.call("/agents", { key: other.key, body: { name: "Theirs", user_id: "alice" } })).body.id;
  await runToEnd(other.key, "alice", theirAgent, "someone else's spend");
}, 60_000);
afterAll(() => platform.close());

const total = () => costs.alice! + costs.bob!;

describe("GET /usage", () => {
  it("reports this month's completed runs, tokens, cost and balance of a prepaid account (no plan)", async () => {
    const { status, body } = await platform.call("/usage", { key: account.key });
    expect(status).toBe(200);
    const now = new Date();
    expect(body).toEqual({
      plan: "prepaid",
      runs_used: 3,
      runs_limit: null,
      cost_used: (total() / 1_000_000).toFixed(6),
      cost_limit: null,
      period_end: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString(),
      // The default catalogue offers the free plan to an account on none.
      free_path_available: true,
      overage_enabled: false,
      overage_used_cents: 0,
      overage_cap_cents: 0,
      overage_rate_cents: 0,
      trial_ends_at: null,
      unlimited_runs: true,
      concurrent_runs: 0,
      concurrent_runs_limit: null,
      period_start: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString(),
      input_tokens: tokens.alice!.input + tokens.bob!.input,
      output_tokens: tokens.alice!.output + tokens.bob!.output,
      cost_used_micros: total(),
      balance_micros: 5_000_000 - total(),
      balance_usd: ((5_000_000 - total()) / 1_000_000).toFixed(2),
      note: expect.stringContaining("on no plan (prepaid)"),
    });
  });

  it("refuses parameters it does not take and needs a key", async () => {
    expect((await platform.call("/usage", { key: account.key, query: { user_id: "alice" } })).status).toBe(400);
    expect((await platform.call("/usage")).status).toBe(401);
  });
});

describe("GET /usage/end-users", () => {
  it("lists every end-user newest first with its runs, tokens, cost and caps", async () => {
    await platform.call("/settings", { key: account.key, method: "PATCH", body: { per_end_user_run_limit: 50, per_end_user_cost_limit_cents: 300 } });
    const { status, body } = await platform.call("/usage/end-users", { key: account.key });
    expect(status).toBe(200);
    expect(body.has_more).toBe(false);
    expect(body.data.map((item: { user_id: string }) => item.user_id)).toEqual(["carol", "bob", "alice"]);
    const alice = body.data.find((item: { user_id: string }) => item.user_id === "alice");
    expect(alice).toMatchObject({
      runs_used: 2,
      runs_limit: 50,
      cost_used_micros: costs.alice,
      cost_used: (costs.alice! / 1_000_000).toFixed(6),
      cost_limit_cents: 300,
      input_tokens: tokens.alice!.input,
      output_tokens: tokens.alice!.output,
    });
    expect(body.data[0]).toMatchObject({ user_id: "carol", runs_used: 0, cost_used_micros: 0 });
  });

  it("pages with limit and starting_after, and narrows with user_id", async () => {
    const first = await platform.call("/usage/end-users", { key: account.key, query: { limit: 2 } });
    expect(first.body.data.map((item: { user_id: string }) => item.user_id)).toEqual(["carol", "bob"]);
    expect(first.body.has_more).toBe(true);
    const rest = await platform.call("/usage/end-users", { key: account.key, query: { limit: 2, starting_after: first.body.data[1].id } });
    expect(rest.body).toMatchObject({ has_more: false, data: [{ user_id: "alice" }] });
    const bob = await platform.call("/usage/end-users", { key: account.key, query: { user_id: "bob" } });
    expect(bob.body.data).toEqual([expect.objectContaining({ user_id: "bob", runs_used: 1, cost_used_micros: costs.bob })]);
    const nobody = await platform.call("/usage/end-users", { key: account.key, query: { user_id: "nobody" } });
    expect(nobody.body).toEqual({ data: [], has_more: false });
  });

  it("validates its parameters", async () => {
    for (const query of [{ limit: 0 }, { limit: 101 }, { limit: "x" }, { starting_after: -1 }, { user_id: " " }]) {
      const { status, body } = await platform.call("/usage/end-users", { key: account.key, query });
      expect(status, JSON.stringify(query)).toBe(422);
      expect(body.error.type).toBe("validation_error");
    }
    expect((await platform.call("/usage/end-users", { key: account.key, query: { teammate_id: 1 } })).status).toBe(400);
  });

  it("never shows another account's end-users or their spend", async () => {
    const theirs = await platform.call("/usage/end-users", { key: other.key });
    expect(theirs.body.data.map((item: { user_id: string }) => item.user_id)).toEqual(["alice"]);
    expect(theirs.body.data[0].cost_used_micros).toBeGreaterThan(0);
    expect(theirs.body.data[0].cost_used_micros).not.toBe(costs.alice);
    expect(theirs.body.data[0]).toMatchObject({ runs_limit: null, cost_limit_cents: null });
  });
});

describe("GET /usage/timeseries", () => {
  const series = (query: Record<string, string | number> = {}, key = account.key) =>
    platform.call("/usage/timeseries", { key, query });

  it("defaults to the 30 days ending today, one bucket per day, today's holding the spend", async () => {
    const { status, body } = await series();
    expect(status).toBe(200);
    expect(body.end_date).toBe(today());
    expect(body.start_date).toBe(daysBefore(today(), 29));
    expect(body.buckets).toHaveLength(30);
    expect(body.buckets[0].date).toBe(body.start_date);
    const last = body.buckets.at(-1);
    const input = tokens.alice!.input + tokens.bob!.input;
    const output = tokens.alice!.output + tokens.bob!.output;
    expect(last).toEqual({
      date: today(),
      input_tokens: input,
      output_tokens: output,
      cache_creation_tokens: 0,
      cache_read_tokens: 0,
      total_tokens: input + output,
      cost_usd: (total() / 1_000_000).toFixed(6),
    });
    expect(body.totals).toEqual({ ...last, date: undefined });
    expect(body.buckets.slice(0, -1).every((bucket: { cost_usd: string }) => bucket.cost_usd === "0.000000")).toBe(true);
  });

  it("takes start_date and end_date, inclusive", async () => {
    const { body } = await series({ start_date: daysBefore(today(), 2), end_date: today() });
    expect(body.buckets.map((bucket: { date: string }) => bucket.date)).toEqual([daysBefore(today(), 2), daysBefore(today(), 1), today()]);
    const past = await series({ start_date: "2020-01-01", end_date: "2020-01-31" });
    expect(past.body.buckets).toHaveLength(31);
    expect(past.body.totals.cost_usd).toBe("0.000000");
    const defaultStart = await series({ end_date: "2024-03-01" });
    // 29 days before 1 March of a leap year.
    expect(defaultStart.body.start_date).toBe("2024-02-01");
  });

  it("filters by teammate_id, user_id, surface and settled_meter", async () => {
    const cost = async (query: Record<string, string | number>) => micros((await series(query)).body.totals.cost_usd);
    expect(await cost({ teammate_id: agents.bob! })).toBe(costs.bob);
    expect(await cost({ teammate_id: agents.carol! })).toBe(0);
    expect(await cost({ user_id: "alice" })).toBe(costs.alice);
    expect(await cost({ user_id: "nobody" })).toBe(0);
    expect(await cost({ surface: "api" })).toBe(total());
    expect(await cost({ surface: "platform" })).toBe(0);
    expect(await cost({ settled_meter: "wallet" })).toBe(total());
    expect(await cost({ settled_meter: "plan" })).toBe(0);
    expect(await cost({ teammate_id: agents.alice!, user_id: "alice", surface: "api", settled_meter: "wallet" })).toBe(costs.alice);
  });

  it("slices by model with group_by=model", async () => {
    const { body } = await series({ group_by: "model" });
    expect(body.totals.models).toEqual([expect.objectContaining({ model: "inlay/sim", cost_usd: (total() / 1_000_000).toFixed(6) })]);
    expect(body.buckets.at(-1).models).toHaveLength(1);
    expect(body.buckets[0].models).toEqual([]);
  });

  it("validates every parameter with 422", async () => {
    const bad: Record<string, string | number>[] = [
      { start_date: "2024-02-30" },
      { end_date: "yesterday" },
      { start_date: "2024-03-02", end_date: "2024-03-01" },
      { start_date: "2020-01-01", end_date: "2024-01-01" },
      { teammate_id: "abc" },
      { teammate_id: 0 },
      { surface: "web" },
      { settled_meter: "card" },
      { group_by: "agent" },
      { user_id: " " },
    ];
    for (const query of bad) {
      const { status, body } = await series(query);
      expect(status, JSON.stringify(query)).toBe(422);
      expect(body.error.type).toBe("validation_error");
    }
    expect((await series({ limit: 5 })).status).toBe(400);
  });

  it("keeps accounts apart", async () => {
    const theirs = await series({}, other.key);
    expect(micros(theirs.body.totals.cost_usd)).toBeGreaterThan(0);
    expect(micros(theirs.body.totals.cost_usd)).not.toBe(total());
    // Their alice is not ours.
    const theirAlice = await series({ user_id: "alice" }, other.key);
    expect(theirAlice.body.totals.cost_usd).toBe(theirs.body.totals.cost_usd);
    expect(micros((await series({ teammate_id: agents.alice! }, other.key)).body.totals.cost_usd)).toBe(0);
  });
});
