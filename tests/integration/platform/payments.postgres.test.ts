// Auto-reload under concurrency, on PostgreSQL with two instances of one deployment: 50 debits that
// each take the balance further below the threshold, each followed by the crossing check the run
// executor makes after settling, charge the saved card once (the armed flag's conditional UPDATE).
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { addBalanceEntry } from "@/server/platform/services/billing/billing";
import { checkBalanceCrossings } from "@/server/platform/services/billing/payments";
import { startPlatform, type PlatformHarness } from "../../helpers/platform";
import { startStripeFake, type StripeFake } from "../../helpers/stripe-fake";

const WEBHOOK_SECRET = "whsec_payments_postgres";
let a: PlatformHarness;
let b: PlatformHarness;
let fake: StripeFake;

beforeAll(async () => {
  a = await startPlatform({ jobPollSeconds: 0.5 });
  b = await startPlatform({ database: a.database, jobPollSeconds: 0.5 });
  fake = await startStripeFake({ webhookUrl: `${a.baseUrl}/billing/webhooks/stripe`, webhookSecret: WEBHOOK_SECRET });
  for (const instance of [a, b]) {
    instance.config.payments = {
      provider: "stripe",
      stripe: { secretKey: "sk_test_inlay", webhookSecret: WEBHOOK_SECRET, apiBaseUrl: fake.url },
      operatorKeySha256: createHash("sha256").update("unused").digest("hex"),
    };
  }
});
afterAll(async () => {
  await fake?.close();
  await b?.close();
  await a?.close();
});

describe("auto-reload under 50 concurrent runs crossing the threshold", () => {
  it("charges once per crossing", async () => {
    const account = await a.signup();
    const topup = await a.call("/billing/topup", { key: account.key, body: { amount_cents: 1_000 } });
    await fake.pay(topup.body.checkout_url.split("/pay/")[1]);
    const prisma = a.database.prisma;
    const balance = Number((await prisma.platformAccount.findUniqueOrThrow({ where: { id: account.id } })).balanceMicros);
    const thresholdCents = Math.floor(balance / 10_000);
    const set = await a.call("/billing/auto-reload", {
      key: account.key,
      method: "PATCH",
      body: { enabled: true, threshold_cents: thresholdCents, amount_cents: 2_000 },
    });
    expect(set.body.payment_method_saved).toBe(true);

    const jobs = [(await a.runtime()).jobs, (await b.runtime()).jobs];
    await Promise.all(
      Array.from({ length: 50 }, async (_, index) => {
        const instance = index % 2 === 0 ? a : b;
        await addBalanceEntry(instance.database.prisma, account.id, { type: "debit", amountMicros: -1_000n, description: `run ${index}` });
        await checkBalanceCrossings({ prisma: instance.database.prisma, jobs: jobs[index % 2] }, account.id);
      }),
    );

    const reloads = () => prisma.platformPayment.findMany({ where: { accountId: account.id, kind: "auto_reload" } });
    await vi.waitFor(async () => expect((await reloads()).map((payment) => payment.status)).toEqual(["completed"]), { timeout: 30_000, interval: 100 });
    const charges = fake.requests.filter((request) => request.path === "/v1/payment_intents");
    expect(charges).toHaveLength(1);
    const after = Number((await prisma.platformAccount.findUniqueOrThrow({ where: { id: account.id } })).balanceMicros);
    expect(after).toBe(balance - 50 * 1_000 + 20_000_000);
    // Credited above the threshold again: re-armed for the next crossing (by the check after the credit's commit).
    await vi.waitFor(
      async () =>
        expect(await prisma.platformBillingSettings.findUniqueOrThrow({ where: { accountId: account.id } })).toMatchObject({
          autoReloadCrossings: 1,
          autoReloadArmed: true,
        }),
      { timeout: 10_000, interval: 100 },
    );
  }, 90_000);

  it("charges once when 50 real runs, started at once through two instances, take the balance below the threshold", async () => {
    const account = await a.signup({ require_end_user_id: false });
    // Past the 25 runs an unverified account may make.
    await a.database.prisma.platformAccount.update({ where: { id: account.id }, data: { emailVerifiedAt: new Date() } });
    const topup = await a.call("/billing/topup", { key: account.key, body: { amount_cents: 1_000 } });
    await fake.pay(topup.body.checkout_url.split("/pay/")[1]);
    const prisma = a.database.prisma;
    const balance = Number((await prisma.platformAccount.findUniqueOrThrow({ where: { id: account.id } })).balanceMicros);
    // The threshold sits at the balance: the first settled run crosses it; the $20 reload lifts the
    // balance far above what the other runs can spend, so exactly one crossing is possible.
    const set = await a.call("/billing/auto-reload", {
      key: account.key,
      method: "PATCH",
      body: { enabled: true, threshold_cents: Math.floor(balance / 10_000), amount_cents: 2_000 },
    });
    expect(set.body.payment_method_saved).toBe(true);
    const agent = await a.call("/agents", { key: account.key, body: { name: "Spender" } });
    expect(agent.status).toBe(201);
    const charged = fake.requests.filter((request) => request.path === "/v1/payment_intents").length;

    const started = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        (index % 2 === 0 ? a : b).call("/runs", {
          key: account.key,
          body: { teammate_id: agent.body.id, message: "hello", stream: false, permission_mode: "autonomous" },
        }),
      ),
    );
    expect(started.filter((response) => response.status !== 200).map((response) => `${response.status} ${JSON.stringify(response.body)}`)).toEqual([]);
    const ids = started.map((response) => response.body.id as number);
    await vi.waitFor(
      async () => {
        const runs = await prisma.platformRun.findMany({ where: { id: { in: ids } }, select: { status: true, holdMicros: true } });
        expect(runs.filter((run) => run.status === "completed" && run.holdMicros === 0n)).toHaveLength(50);
      },
      { timeout: 60_000, interval: 200 },
    );
    const reloads = () => prisma.platformPayment.findMany({ where: { accountId: account.id, kind: "auto_reload" } });
    await vi.waitFor(async () => expect((await reloads()).map((payment) => payment.status)).toEqual(["completed"]), { timeout: 30_000, interval: 100 });
    const settings = await prisma.platformBillingSettings.findUniqueOrThrow({ where: { accountId: account.id } });
    expect(settings.autoReloadCrossings).toBe(1);
    expect(fake.requests.filter((request) => request.path === "/v1/payment_intents").length - charged).toBe(1);
    const spent = await prisma.platformRun.aggregate({ where: { id: { in: ids } }, _sum: { settledMicros: true } });
    expect(spent._sum.settledMicros).toBeGreaterThan(0n);
    const after = Number((await prisma.platformAccount.findUniqueOrThrow({ where: { id: account.id } })).balanceMicros);
    expect(after).toBe(balance - Number(spent._sum.settledMicros) + 20_000_000);
  }, 120_000);
});
