// Auto-reload under concurrency, on PostgreSQL with two instances of one deployment: 50 debits that
// each take the balance further below the threshold, each followed by the crossing check the run
// executor makes after settling, charge the saved card once (the armed flag's conditional UPDATE).
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { addBalanceEntry } from "@/server/platform/services/billing";
import { checkBalanceCrossings } from "@/server/platform/services/payments";
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
      publicBaseUrl: a.baseUrl,
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
    const settings = await prisma.platformBillingSettings.findUniqueOrThrow({ where: { accountId: account.id } });
    expect(settings.autoReloadCrossings).toBe(1);
    const charges = fake.requests.filter((request) => request.path === "/v1/payment_intents");
    expect(charges).toHaveLength(1);
    const after = Number((await prisma.platformAccount.findUniqueOrThrow({ where: { id: account.id } })).balanceMicros);
    expect(after).toBe(balance - 50 * 1_000 + 20_000_000);
    // Credited above the threshold again: re-armed for the next crossing.
    expect(settings.autoReloadArmed).toBe(true);
  }, 90_000);
});
