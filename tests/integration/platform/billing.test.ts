// Money for runs: metering at the catalogue's prices, the prepaid ledger, the signup credit, and run
// admission (balance, unverified email, per-end-user caps and turn rate), over real HTTP with the sim.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addLedgerEntry } from "@/server/platform/repositories/billing";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";
import { pollUntil } from "../../helpers/poll";

const HOLD = 5_000;
let platform: PlatformHarness;

beforeAll(async () => {
  platform = await startPlatform({ billing: { runHoldMicros: HOLD } });
});
afterAll(() => platform.close());

const prisma = () => platform.database.prisma;

async function newAgent(account: Account, userId: string): Promise<number> {
  const { status, body } = await platform.call("/agents", { key: account.key, body: { name: "Biller", user_id: userId } });
  expect(status).toBe(201);
  return body.id;
}

function postRun(account: Account, userId: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return platform.call("/runs", {
    key: account.key,
    query: { user_id: userId },
    body: { stream: false, permission_mode: "autonomous", ...body },
    headers,
  });
}

async function waitForStatus(account: Account, userId: string, runId: number, statuses: string[]) {
  return platform.waitForRun(account.key, runId, statuses, { user_id: userId });
}

/** Runs to completion and returns the finished run. */
async function completedRun(account: Account, userId: string, body: Record<string, unknown>) {
  const started = await postRun(account, userId, body);
  expect(started.status).toBe(200);
  const done = await waitForStatus(account, userId, started.body.id, ["completed", "failed"]);
  expect(done.status).toBe("completed");
  // The executor settles just after the status changes: wait for the run's debit.
  await pollUntil(
    async () => ({
      ledger: await prisma().platformBalanceTransaction.count({ where: { runId: done.id } }),
      held: (await prisma().platformRun.findUniqueOrThrow({ where: { id: done.id } })).holdMicros,
    }),
    ({ ledger, held }) => ledger > 0 && held === 0n,
    `run ${done.id}'s debit`,
  );
  return done;
}

const balanceOf = async (account: Account) => (await platform.call("/billing/balance", { key: account.key })).body;

/** Sets the balance to `micros` through the ledger, as an operator's adjustment would. */
async function setBalance(account: Account, micros: number) {
  const { balance_micros } = await balanceOf(account);
  const after = await addLedgerEntry(prisma(), account.id, {
    type: "adjustment",
    amountMicros: BigInt(micros - balance_micros),
    description: "test adjustment",
  });
  expect(after).toBe(BigInt(micros));
}

/** USD per million tokens (a decimal string) times tokens, in millionths of a micro-USD: exact. */
function priceTimes(price: string, tokens: number): bigint {
  const [whole, fraction = ""] = price.split(".");
  return BigInt(tokens) * (BigInt(whole!) * 1_000_000n + BigInt(fraction.padEnd(6, "0")));
}

async function simPricing(account: Account) {
  const models = await platform.call("/models", { key: account.key });
  return models.body.data.find((model: { id: string }) => model.id === "inlay/sim").pricing as {
    input_per_million: string;
    output_per_million: string;
  };
}

const usd = (micros: bigint) => `${micros / 1_000_000n}.${(micros % 1_000_000n).toString().padStart(6, "0")}`;

describe("signup credit", () => {
  it("gives a new account the configured test credit as its first ledger entry", async () => {
    const account = await platform.signup();
    const balance = await balanceOf(account);
    expect(balance).toEqual({
      balance_micros: 5_000_000,
      balance_usd: "5.00",
      currency: "usd",
      held_micros: 0,
      available_micros: 5_000_000,
      transactions: [
        {
          id: expect.any(Number),
          type: "topup",
          amount_micros: 5_000_000,
          balance_after_micros: 5_000_000,
          run_id: null,
          description: "Signup test credit of $5.00",
          created_at: expect.any(String),
        },
      ],
    });
  });

  it("takes the credit from the configuration", async () => {
    const other = await startPlatform({ billing: { signupCreditMicros: 1_234_567 } });
    try {
      const account = await other.signup();
      const { body } = await other.call("/billing/balance", { key: account.key });
      expect(body).toMatchObject({ balance_micros: 1_234_567, balance_usd: "1.23" });
    } finally {
      await other.close();
    }
  });

  it("needs a key", async () => {
    expect((await platform.call("/billing/balance")).status).toBe(401);
  });
});

describe("metering", () => {
  it("charges a run exactly the sim's tokens at the catalogue's prices", async () => {
    const account = await platform.signup();
    const agentId = await newAgent(account, "u1");
    const message = "hello metered world";
    const run = await completedRun(account, "u1", { teammate_id: agentId, message });

    // The sim counts ceil(characters / 4): the prompt is the system prompt and the message, one per line.
    const { prompt } = (await platform.call(`/agents/${agentId}/system-prompt`, { key: account.key, query: { user_id: "u1" } })).body;
    const inputTokens = Math.ceil(`${prompt}\n${message}`.length / 4);
    const outputTokens = Math.ceil(`Echo: ${message}`.length / 4);
    const pricing = await simPricing(account);
    const units = priceTimes(pricing.input_per_million, inputTokens) + priceTimes(pricing.output_per_million, outputTokens);
    const cost = (units + 999_999n) / 1_000_000n;
    expect(cost).toBeGreaterThan(0n);
    expect(run.usage).toEqual({ input_tokens: inputTokens, output_tokens: outputTokens, cost_usd: usd(cost) });

    const balance = await balanceOf(account);
    expect(balance.balance_micros).toBe(5_000_000 - Number(cost));
    expect(balance.held_micros).toBe(0);
    expect(balance.transactions[0]).toMatchObject({
      type: "debit",
      amount_micros: -Number(cost),
      balance_after_micros: 5_000_000 - Number(cost),
      run_id: run.id,
      description: `Run ${run.id} on inlay/sim`,
    });

    const records = await prisma().platformUsageRecord.findMany({ where: { runId: run.id } });
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ surface: "api", settledMeter: "wallet", model: "inlay/sim", agentId, inputTokens, outputTokens });
    expect(records[0]!.costMicros).toBe(cost);
  });

  it("charges no more than the balance and writes the rest off, saying how much in the ledger", async () => {
    const account = await platform.signup();
    const agentId = await newAgent(account, "u1");
    await setBalance(account, 3);
    const run = await completedRun(account, "u1", { teammate_id: agentId, message: "::words 300" });
    const [whole, fraction] = (run.usage.cost_usd as string).split(".");
    const cost = BigInt(whole!) * 1_000_000n + BigInt(fraction!.padEnd(6, "0"));
    expect(cost).toBeGreaterThan(3n);
    const balance = await balanceOf(account);
    expect(balance).toMatchObject({ balance_micros: 0, held_micros: 0 });
    const unpaid = cost - 3n;
    expect(balance.transactions[0]).toMatchObject({
      type: "debit",
      amount_micros: -3,
      balance_after_micros: 0,
      run_id: run.id,
      description: `Run ${run.id} on inlay/sim (${unpaid / 1_000_000n}.${(unpaid % 1_000_000n).toString().padStart(6, "0")} USD not charged: the balance could not cover it)`,
    });
  });

  it("meters every model call of a multi-step run and debits their sum once", async () => {
    const account = await platform.signup();
    const agentId = await newAgent(account, "u1");
    const run = await completedRun(account, "u1", { teammate_id: agentId, message: '::tool calculator {"expression":"6*7"}' });
    const records = await prisma().platformUsageRecord.findMany({ where: { runId: run.id }, orderBy: { id: "asc" } });
    expect(records).toHaveLength(2);
    const pricing = await simPricing(account);
    const sum = records.reduce((total, record) => {
      const units = priceTimes(pricing.input_per_million, record.inputTokens) + priceTimes(pricing.output_per_million, record.outputTokens);
      expect(record.costMicros).toBe((units + 999_999n) / 1_000_000n);
      return total + record.costMicros;
    }, 0n);
    expect(run.usage.input_tokens).toBe(records[0]!.inputTokens + records[1]!.inputTokens);
    expect(run.usage.cost_usd).toBe(usd(sum));
    const debits = (await balanceOf(account)).transactions.filter((entry: { run_id: number }) => entry.run_id === run.id);
    expect(debits).toEqual([expect.objectContaining({ type: "debit", amount_micros: -Number(sum) })]);
  });

  it("keeps a ledger whose entries add up, newest first, after several runs", async () => {
    const account = await platform.signup();
    const agentId = await newAgent(account, "u1");
    const runs = [];
    for (const message of ["one", "two two", "three three three"]) {
      runs.push(await completedRun(account, "u1", { teammate_id: agentId, message }));
    }
    const balance = await balanceOf(account);
    expect(balance.transactions.map((entry: { type: string; run_id: number | null }) => [entry.type, entry.run_id])).toEqual([
      ["debit", runs[2]!.id],
      ["debit", runs[1]!.id],
      ["debit", runs[0]!.id],
      ["topup", null],
    ]);
    const oldestFirst = [...balance.transactions].reverse();
    let running = 0;
    for (const entry of oldestFirst) {
      running += entry.amount_micros;
      expect(entry.balance_after_micros).toBe(running);
    }
    expect(balance.balance_micros).toBe(running);
    const costs = runs.map((run) => Math.round(Number(run.usage.cost_usd) * 1_000_000));
    expect(oldestFirst.slice(1).map((entry: { amount_micros: number }) => -entry.amount_micros)).toEqual(costs);
  });

  it("charges a cancelled run for the calls it made and gives its hold back", async () => {
    const account = await platform.signup();
    const agentId = await newAgent(account, "u1");
    const started = await postRun(account, "u1", { teammate_id: agentId, permission_mode: "approval", message: '::tool calculator {"expression":"1+1"}' });
    await waitForStatus(account, "u1", started.body.id, ["awaiting_approval"]);
    const paused = await balanceOf(account);
    expect(paused.held_micros).toBeGreaterThan(0);
    expect(paused.held_micros).toBeLessThanOrEqual(HOLD);
    const cancel = await platform.call(`/runs/${started.body.id}/cancel`, { key: account.key, query: { user_id: "u1" }, method: "POST" });
    expect(cancel.status).toBe(200);
    const after = await balanceOf(account);
    expect(after.held_micros).toBe(0);
    const cost = Math.round(Number(cancel.body.usage.cost_usd) * 1_000_000);
    expect(cost).toBeGreaterThan(0);
    expect(after.balance_micros).toBe(5_000_000 - cost);
  });
});

// A verified account is admitted by the one-statement fast path, an unverified one by the admission
// transaction (services/runs/run-admission.ts): both must hold the same line.
describe.each([
  { path: "fast path, verified account", verified: true },
  { path: "transaction, unverified account", verified: false },
])("admission: balance ($path)", ({ verified }) => {
  const signup = async () => {
    const account = await platform.signup();
    if (verified) await prisma().platformAccount.update({ where: { id: account.id }, data: { emailVerifiedAt: new Date() } });
    return account;
  };

  it("answers 402 TOKEN_BALANCE_DEPLETED with a topup_url at a zero balance, and does not bind the Idempotency-Key", async () => {
    const account = await signup();
    const agentId = await newAgent(account, "u1");
    await setBalance(account, 0);
    const refused = await postRun(account, "u1", { teammate_id: agentId, message: "broke" }, { "idempotency-key": "broke-1" });
    expect(refused.status).toBe(402);
    expect(refused.body.error).toMatchObject({
      type: "billing_error",
      code: 402,
      error_code: "TOKEN_BALANCE_DEPLETED",
      topup_url: `${platform.baseUrl}/billing/topup`,
      details: { error_code: "TOKEN_BALANCE_DEPLETED", topup_url: `${platform.baseUrl}/billing/topup`, balance_micros: 0 },
    });
    expect(await prisma().platformRun.count({ where: { accountId: account.id } })).toBe(0);

    await setBalance(account, 100_000);
    const retried = await postRun(account, "u1", { teammate_id: agentId, message: "broke" }, { "idempotency-key": "broke-1" });
    expect(retried.status).toBe(200);
    expect(retried.headers.get("idempotent-replay")).toBeNull();
  });

  it("admits exactly as many paused runs as the balance holds when 100 race, and never goes below zero", async () => {
    const account = await signup();
    const agentId = await newAgent(account, "racer");
    await setBalance(account, 10 * HOLD);
    const answers = await Promise.all(
      Array.from({ length: 100 }, () =>
        postRun(account, "racer", { teammate_id: agentId, permission_mode: "approval", message: '::tool calculator {"expression":"2+2"}' }),
      ),
    );
    const admitted = answers.filter((answer) => answer.status === 200);
    const refused = answers.filter((answer) => answer.status !== 200);
    expect(admitted).toHaveLength(10);
    expect(refused.map((answer) => `${answer.status} ${answer.body.error?.error_code}`)).toEqual(
      Array.from({ length: 90 }, () => "402 TOKEN_BALANCE_DEPLETED"),
    );
    for (const answer of admitted) await waitForStatus(account, "racer", answer.body.id, ["awaiting_approval"]);
    for (const answer of admitted) {
      const cancel = await platform.call(`/runs/${answer.body.id}/cancel`, { key: account.key, query: { user_id: "racer" }, method: "POST" });
      expect(cancel.status).toBe(200);
    }
    const balance = await balanceOf(account);
    expect(balance.held_micros).toBe(0);
    expect(balance.balance_micros).toBeGreaterThanOrEqual(0);
    const charged = await prisma().platformRun.aggregate({ where: { accountId: account.id }, _sum: { costMicros: true } });
    expect(balance.balance_micros).toBe(10 * HOLD - Number(charged._sum.costMicros));
  });

  it("never lets 100 racing runs spend more than the balance: at most 10 runs of a balance that pays for 10", async () => {
    const account = await signup();
    const agentId = await newAgent(account, "sprinter");
    const message = "race me";
    const calibration = await completedRun(account, "sprinter", { teammate_id: agentId, message });
    const cost = Math.round(Number(calibration.usage.cost_usd) * 1_000_000);
    await setBalance(account, 10 * cost);
    const answers = await Promise.all(Array.from({ length: 100 }, () => postRun(account, "sprinter", { teammate_id: agentId, message })));
    const admitted = answers.filter((answer) => answer.status === 200);
    expect(admitted.length).toBeGreaterThanOrEqual(1);
    expect(admitted.length).toBeLessThanOrEqual(10);
    expect(answers.filter((answer) => answer.status !== 200).map((answer) => `${answer.status} ${answer.body.error?.error_code}`)).toEqual(
      Array.from({ length: 100 - admitted.length }, () => "402 TOKEN_BALANCE_DEPLETED"),
    );
    for (const answer of admitted) await waitForStatus(account, "sprinter", answer.body.id, ["completed"]);
    const balance = await pollUntil(() => balanceOf(account), (now) => now.held_micros === 0, "the holds to be released");
    expect(balance.held_micros).toBe(0);
    expect(balance.balance_micros).toBe(10 * cost - admitted.length * cost);
    // The ledger says the same: one debit of the run's cost for each admitted run, none for a refused one.
    const debits = await prisma().platformBalanceTransaction.findMany({ where: { accountId: account.id, type: "debit" }, orderBy: { runId: "asc" } });
    const runIds = [calibration.id, ...admitted.map((answer) => answer.body.id as number)].sort((a, b) => a - b);
    expect(debits.map((debit) => [debit.runId, Number(debit.amountMicros)])).toEqual(runIds.map((id) => [id, -cost]));
  });
});

describe("admission: unverified email", () => {
  it("allows 25 runs before the email is verified, then 402 EMAIL_VERIFICATION_REQUIRED until it is", async () => {
    const account = await platform.signup();
    const agentId = await newAgent(account, "u1");
    for (let i = 0; i < 25; i++) {
      const started = await postRun(account, "u1", { teammate_id: agentId, message: `run ${i}` });
      expect(started.status).toBe(200);
    }
    const refused = await postRun(account, "u1", { teammate_id: agentId, message: "one too many" });
    expect(refused.status).toBe(402);
    expect(refused.body.error).toMatchObject({
      type: "billing_error",
      error_code: "EMAIL_VERIFICATION_REQUIRED",
      details: { error_code: "EMAIL_VERIFICATION_REQUIRED", unverified_run_limit: 25 },
    });

    const link = /https?:\/\/\S+/.exec(platform.lastMail(account.email, "verify_email").text)![0];
    expect((await fetch(link)).status).toBe(200);
    expect((await postRun(account, "u1", { teammate_id: agentId, message: "verified now" })).status).toBe(200);
  });
});

describe("admission: per-end-user caps", () => {
  async function verifiedAccount() {
    const account = await platform.signup();
    await prisma().platformAccount.update({ where: { id: account.id }, data: { emailVerifiedAt: new Date() } });
    return account;
  }

  it("stops an end-user at per_end_user_run_limit runs this period with 402 RUN_LIMIT_REACHED; others run on", async () => {
    const account = await verifiedAccount();
    expect((await platform.call("/settings", { key: account.key, method: "PATCH", body: { per_end_user_run_limit: 2 } })).status).toBe(200);
    const capped = await newAgent(account, "capped");
    const free = await newAgent(account, "free");
    await completedRun(account, "capped", { teammate_id: capped, message: "a" });
    await completedRun(account, "capped", { teammate_id: capped, message: "b" });
    const refused = await postRun(account, "capped", { teammate_id: capped, message: "c" });
    expect(refused.status).toBe(402);
    expect(refused.body.error).toMatchObject({
      type: "billing_error",
      error_code: "RUN_LIMIT_REACHED",
      details: { end_user_id: "capped", limit: 2, used: 2 },
    });
    expect((await postRun(account, "free", { teammate_id: free, message: "still fine" })).status).toBe(200);

    expect((await platform.call("/settings", { key: account.key, method: "PATCH", body: { per_end_user_run_limit: null } })).status).toBe(200);
    expect((await postRun(account, "capped", { teammate_id: capped, message: "cap removed" })).status).toBe(200);
  });

  it("stops an end-user at per_end_user_cost_limit_cents with 402 COST_LIMIT_REACHED", async () => {
    const account = await verifiedAccount();
    const agentId = await newAgent(account, "spender");
    await platform.call("/settings", { key: account.key, method: "PATCH", body: { per_end_user_cost_limit_cents: 0 } });
    const none = await postRun(account, "spender", { teammate_id: agentId, message: "nothing allowed" });
    expect(none.status).toBe(402);
    expect(none.body.error).toMatchObject({ error_code: "COST_LIMIT_REACHED", details: { end_user_id: "spender", limit_cents: 0 } });

    await platform.call("/settings", { key: account.key, method: "PATCH", body: { per_end_user_cost_limit_cents: 1 } });
    const big = await completedRun(account, "spender", { teammate_id: agentId, message: "::words 4000" });
    expect(Number(big.usage.cost_usd)).toBeGreaterThan(0.01);
    const refused = await postRun(account, "spender", { teammate_id: agentId, message: "over" });
    expect(refused.status).toBe(402);
    expect(refused.body.error).toMatchObject({
      type: "billing_error",
      error_code: "COST_LIMIT_REACHED",
      details: { end_user_id: "spender", limit_cents: 1, used_usd: big.usage.cost_usd },
    });
  });

  it("limits an end-user's turns per minute with 429 END_USER_RATE_LIMITED and Retry-After, without binding the key", async () => {
    const account = await verifiedAccount();
    await platform.call("/settings", { key: account.key, method: "PATCH", body: { per_end_user_rate_per_minute: 2 } });
    const fast = await newAgent(account, "fast");
    const calm = await newAgent(account, "calm");
    expect((await postRun(account, "fast", { teammate_id: fast, message: "1" })).status).toBe(200);
    expect((await postRun(account, "fast", { teammate_id: fast, message: "2" })).status).toBe(200);
    const limited = await postRun(account, "fast", { teammate_id: fast, message: "3" }, { "idempotency-key": "rate-1" });
    expect(limited.status).toBe(429);
    expect(limited.body.error).toMatchObject({
      type: "rate_limit_error",
      error_code: "END_USER_RATE_LIMITED",
      details: { error_code: "END_USER_RATE_LIMITED", end_user_id: "fast", limit_per_minute: 2 },
    });
    const retryAfter = limited.body.error.details.retry_after;
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.headers.get("retry-after")).toBe(String(retryAfter));
    expect((await postRun(account, "calm", { teammate_id: calm, message: "unaffected" })).status).toBe(200);

    await platform.call("/settings", { key: account.key, method: "PATCH", body: { per_end_user_rate_per_minute: null } });
    const retried = await postRun(account, "fast", { teammate_id: fast, message: "3" }, { "idempotency-key": "rate-1" });
    expect(retried.status).toBe(200);
    expect(retried.headers.get("idempotent-replay")).toBeNull();
  });
});

describe("admission: replies", () => {
  it("counts a reply as a turn for the rate cap and debits what the reply costs", async () => {
    const account = await platform.signup();
    await prisma().platformAccount.update({ where: { id: account.id }, data: { emailVerifiedAt: new Date() } });
    const agentId = await newAgent(account, "talker");
    const first = await completedRun(account, "talker", { teammate_id: agentId, message: "hello" });
    const debitsBefore = await prisma().platformBalanceTransaction.count({ where: { runId: first.id, type: "debit" } });
    await platform.call("/settings", { key: account.key, method: "PATCH", body: { per_end_user_rate_per_minute: 2 } });

    const reply = await platform.call(`/runs/${first.id}/reply?user_id=talker`, {
      key: account.key,
      method: "POST",
      body: { message: "and again", stream: false },
    });
    expect(reply.status).toBe(200);
    const replied = await waitForStatus(account, "talker", first.id, ["completed", "failed"]);
    expect(replied.status).toBe("completed");
    // The reply's own cost is debited once the run settles again (it held money while running).
    const run = await pollUntil(
      () => prisma().platformRun.findUniqueOrThrow({ where: { id: first.id } }),
      (now) => now.holdMicros === 0n && now.settledMicros === now.costMicros,
      "the reply's cost to be settled",
    );
    expect(run.holdMicros).toBe(0n);
    expect(run.settledMicros).toBe(run.costMicros);
    expect(await prisma().platformBalanceTransaction.count({ where: { runId: first.id, type: "debit" } })).toBe(debitsBefore + 1);

    // Two turns this minute (the start and the reply): the next reply is over the cap.
    const limited = await platform.call(`/runs/${first.id}/reply?user_id=talker`, {
      key: account.key,
      method: "POST",
      body: { message: "one more", stream: false },
    });
    expect(limited.status).toBe(429);
    expect(limited.body.error).toMatchObject({ error_code: "END_USER_RATE_LIMITED", details: { end_user_id: "talker", limit_per_minute: 2 } });
    expect((await prisma().platformRun.findUniqueOrThrow({ where: { id: first.id } })).status).toBe("completed");
  });
});

describe("isolation", () => {
  it("shows each account only its own balance and ledger", async () => {
    const mine = await platform.signup();
    const theirs = await platform.signup();
    const agentId = await newAgent(mine, "u1");
    const run = await completedRun(mine, "u1", { teammate_id: agentId, message: "private spend" });
    const their = await balanceOf(theirs);
    expect(their.balance_micros).toBe(5_000_000);
    expect(their.transactions.some((entry: { run_id: number | null }) => entry.run_id === run.id)).toBe(false);
    expect(their.transactions).toHaveLength(1);
  });
});
