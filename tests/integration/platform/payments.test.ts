// Payments through the adapter, against a loopback Stripe fake (tests/helpers/stripe-fake.ts) and on
// the manual adapter: top-up limits, a top-up credited exactly once (webhook twice, redirect racing it),
// signatures, receipts and their invoices, auto-reload and the low-balance alert once per crossing,
// the operator's credits, and isolation.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { addLedgerEntry } from "@/server/platform/repositories/billing";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";
import { startStripeFake, type StripeFake } from "../../helpers/stripe-fake";

const WEBHOOK_SECRET = "whsec_payments_test";
const OPERATOR_KEY = "operator-key-for-tests";
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

let stripe: PlatformHarness;
let manual: PlatformHarness;
let fake: StripeFake;

beforeAll(async () => {
  [stripe, manual] = await Promise.all([startPlatform({ jobPollSeconds: 0.5 }), startPlatform({ jobPollSeconds: 0.5 })]);
  fake = await startStripeFake({ webhookUrl: `${stripe.baseUrl}/billing/webhooks/stripe`, webhookSecret: WEBHOOK_SECRET });
  // The harness's port is known only now; the configuration object is the running platform's.
  stripe.config.payments = {
    provider: "stripe",
    stripe: { secretKey: "sk_test_inlay", webhookSecret: WEBHOOK_SECRET, apiBaseUrl: fake.url },
    operatorKeySha256: sha256(OPERATOR_KEY),
  };
  manual.config.payments = {
    provider: "manual",
    operatorKeySha256: sha256(OPERATOR_KEY),
    manualInstructions: "Wire the amount to ACME Bank, account 123, quoting the reference.",
  };
});
afterAll(async () => {
  await fake?.close();
  await stripe?.close();
  await manual?.close();
});

const balanceOf = async (platform: PlatformHarness, account: Account) =>
  (await platform.call("/billing/balance", { key: account.key })).body.balance_micros as number;

const sessionOf = (checkoutUrl: string) => checkoutUrl.split("/pay/")[1]!;

async function topup(account: Account, cents: number) {
  const answer = await stripe.call("/billing/topup", { key: account.key, body: { amount_cents: cents } });
  expect(answer.status).toBe(200);
  expect(answer.body.checkout_url.startsWith(`${fake.url}/pay/cs_test_`)).toBe(true);
  return sessionOf(answer.body.checkout_url);
}

/** Pays the session with its webhook events held back (fake.pending) instead of delivered. */
async function payHeld(session: string) {
  fake.delivery = "hold";
  try {
    return await fake.pay(session);
  } finally {
    fake.delivery = "once";
  }
}

describe("POST /billing/topup", () => {
  it.each([
    ["below the minimum", { amount_cents: 499 }],
    ["above the maximum", { amount_cents: 100_000_001 }],
    ["not an integer", { amount_cents: 500.5 }],
    ["missing", {}],
  ])("answers 422 naming amount_cents when it is %s", async (_, body) => {
    const account = await stripe.signup();
    const answer = await stripe.call("/billing/topup", { key: account.key, body });
    expect(answer.status).toBe(422);
    expect(answer.body.error.type).toBe("validation_error");
    expect(answer.body.error.details.fields.map((field: { field: string }) => field.field)).toEqual(["amount_cents"]);
  });

  it("accepts both limits and credits nothing before the payment completes", async () => {
    const account = await stripe.signup();
    const before = await balanceOf(stripe, account);
    for (const cents of [500, 100_000_000]) {
      const answer = await stripe.call("/billing/topup", { key: account.key, body: { amount_cents: cents } });
      expect(answer.status).toBe(200);
      expect(fake.sessions.get(sessionOf(answer.body.checkout_url))!.amount_total).toBe(cents);
    }
    expect(await balanceOf(stripe, account)).toBe(before);
  });

  it("needs an API key", async () => {
    expect((await stripe.call("/billing/topup", { body: { amount_cents: 500 } })).status).toBe(401);
  });
});

describe("the Stripe webhook", () => {
  it("credits a top-up once when the webhook is delivered twice", async () => {
    const account = await stripe.signup();
    const before = await balanceOf(stripe, account);
    const session = await topup(account, 1_234);
    fake.delivery = "twice";
    try {
      await fake.pay(session);
    } finally {
      fake.delivery = "once";
    }
    const deliveries = fake.deliveries.filter((delivery) => delivery.type === "checkout.session.completed").slice(-2);
    expect(deliveries.map((delivery) => delivery.status)).toEqual([200, 200]);
    expect(deliveries[0]!.eventId).toBe(deliveries[1]!.eventId);
    expect(deliveries.map((delivery) => JSON.parse(delivery.body).duplicate)).toEqual([false, true]);
    expect(await balanceOf(stripe, account)).toBe(before + 12_340_000);
    const ledger = await stripe.database.prisma.platformBalanceTransaction.findMany({ where: { accountId: account.id, description: { startsWith: "Top-up pay_" } } });
    expect(ledger).toHaveLength(1);
  });

  it("credits once when the success redirect races the webhook", async () => {
    const account = await stripe.signup();
    const before = await balanceOf(stripe, account);
    const session = await topup(account, 2_000);
    const successUrl = await payHeld(session);
    expect(successUrl.startsWith(`${stripe.baseUrl}/billing/checkout/return?session_id=${session}`)).toBe(true);
    const [page, delivered] = await Promise.all([fetch(successUrl), fake.flush()]);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Payment received");
    expect(delivered.map((delivery) => delivery.status)).toEqual([200]);
    // The redirect again (a reload) changes nothing either.
    expect((await fetch(successUrl)).status).toBe(200);
    expect(await balanceOf(stripe, account)).toBe(before + 20_000_000);
    expect(await stripe.database.prisma.platformReceipt.count({ where: { accountId: account.id } })).toBe(1);
  });

  it("answers 400 to a bad signature and credits nothing", async () => {
    const account = await stripe.signup();
    const before = await balanceOf(stripe, account);
    const session = await topup(account, 700);
    await payHeld(session);
    const event = fake.pending.splice(0)[0]!;
    const forged = await fake.deliver(event, { secret: "whsec_not_the_one" });
    expect(forged.status).toBe(400);
    expect(JSON.parse(forged.body).error.error_code).toBe("invalid_signature");
    const unsigned = await stripe.request("/billing/webhooks/stripe", { method: "POST", body: JSON.stringify(event), headers: { "content-type": "application/json" } });
    expect(unsigned.status).toBe(400);
    expect(await balanceOf(stripe, account)).toBe(before);
    // The same event, signed by Stripe's secret, is applied: the refusal above was the signature's.
    expect((await fake.deliver(event)).status).toBe(200);
    expect(await balanceOf(stripe, account)).toBe(before + 7_000_000);
  });
});

describe("GET /billing/receipts", () => {
  it("lists a numbered receipt per payment, with the provider's invoice URLs", async () => {
    const account = await stripe.signup();
    for (const cents of [500, 900]) await fake.pay(await topup(account, cents));
    const listed = await stripe.call("/billing/receipts", { key: account.key });
    expect(listed.status).toBe(200);
    expect(listed.body.has_more).toBe(false);
    expect(listed.body.data.map((receipt: { amount_cents: number }) => receipt.amount_cents)).toEqual([900, 500]);
    const [newest, oldest] = listed.body.data;
    expect(newest.number).toMatch(/^R-\d{6}$/);
    expect(Number(newest.number.slice(2))).toBeGreaterThan(Number(oldest.number.slice(2)));
    expect(newest).toMatchObject({ kind: "topup", currency: "usd", amount_usd: "9.00" });

    const paged = await stripe.call("/billing/receipts", { key: account.key, query: { limit: 1 } });
    expect(paged.body.data.map((receipt: { id: number }) => receipt.id)).toEqual([newest.id]);
    expect(paged.body.has_more).toBe(true);
    const next = await stripe.call("/billing/receipts", { key: account.key, query: { limit: 1, starting_after: newest.id } });
    expect(next.body.data.map((receipt: { id: number }) => receipt.id)).toEqual([oldest.id]);

    const invoice = await stripe.call(`/billing/receipts/${newest.id}/invoice`, { key: account.key });
    expect(invoice.status).toBe(200);
    expect(invoice.body).toMatchObject({ receipt_id: newest.id, number: newest.number });
    expect(invoice.body.hosted_invoice_url).toMatch(new RegExp(`^${fake.url}/invoices/in_`));
    expect(invoice.body.invoice_pdf_url).toMatch(new RegExp(`^${fake.url}/invoices/in_.*/pdf$`));
  });

  it("answers 404 for another account's receipt", async () => {
    const owner = await stripe.signup();
    const other = await stripe.signup();
    await fake.pay(await topup(owner, 500));
    const receipt = (await stripe.call("/billing/receipts", { key: owner.key })).body.data[0];
    const answer = await stripe.call(`/billing/receipts/${receipt.id}/invoice`, { key: other.key });
    expect(answer.status).toBe(404);
    expect((await stripe.call("/billing/receipts", { key: other.key })).body.data).toEqual([]);
  });

  it("validates the page query", async () => {
    const account = await stripe.signup();
    const answer = await stripe.call("/billing/receipts", { key: account.key, query: { limit: 0 } });
    expect(answer.status).toBe(422);
    expect(answer.body.error.details.fields[0].field).toBe("limit");
  });
});

describe("POST /billing/portal", () => {
  it("answers the provider's portal for the account's customer", async () => {
    const account = await stripe.signup();
    const answer = await stripe.call("/billing/portal", { key: account.key, method: "POST" });
    expect(answer.status).toBe(200);
    expect(answer.body.url.startsWith(`${fake.url}/portal/bps_`)).toBe(true);
  });
});

describe("POST /billing/checkout", () => {
  it("answers 422 naming plan_id when it is missing, and billing_period when it is not a period", async () => {
    const account = await stripe.signup();
    const missing = await stripe.call("/billing/checkout", { key: account.key, body: {} });
    expect(missing.status).toBe(422);
    expect(missing.body.error.details.fields[0].field).toBe("plan_id");
    const period = await stripe.call("/billing/checkout", { key: account.key, body: { plan_id: "pro", billing_period: "weekly" } });
    expect(period.status).toBe(422);
    expect(period.body.error.details.fields[0].field).toBe("billing_period");
  });
});

describe("a plan bought through checkout", () => {
  it("puts the account on the plan once paid (a second delivery changes nothing), renews it, and ends it with the subscription", async () => {
    const account = await stripe.signup();
    const balance = await balanceOf(stripe, account);
    const answer = await stripe.call("/billing/checkout", { key: account.key, body: { plan_id: "pro", billing_period: "monthly" } });
    expect(answer.status).toBe(200);
    expect((await stripe.call("/usage", { key: account.key })).body.plan).toBe("prepaid");
    fake.delivery = "twice";
    try {
      await fake.pay(sessionOf(answer.body.checkout_url));
    } finally {
      fake.delivery = "once";
    }
    const usage = (await stripe.call("/usage", { key: account.key })).body;
    expect(usage).toMatchObject({ plan: "pro", runs_limit: 2_000, concurrent_runs_limit: 5, unlimited_runs: false });
    // A plan is paid by card, not from the balance; it is receipted once.
    expect(await balanceOf(stripe, account)).toBe(balance);
    expect(await stripe.database.prisma.platformReceipt.count({ where: { accountId: account.id } })).toBe(1);

    const plan = await stripe.database.prisma.platformAccountPlan.findUniqueOrThrow({ where: { accountId: account.id } });
    expect(plan.providerSubscriptionId).toMatch(/^sub_/);
    await fake.renew(plan.providerSubscriptionId!);
    expect((await stripe.call("/usage", { key: account.key })).body.plan).toBe("pro");
    expect(await stripe.database.prisma.platformReceipt.count({ where: { accountId: account.id } })).toBe(2);

    await fake.cancelSubscription(plan.providerSubscriptionId!);
    expect((await stripe.call("/usage", { key: account.key })).body.plan).toBe("prepaid");
  });
});

// --- Auto-reload and the alert ----------------------------------------------------------------------

async function newAgent(platform: PlatformHarness, account: Account) {
  const { status, body } = await platform.call("/agents", { key: account.key, body: { name: "Spender" } });
  expect(status).toBe(201);
  return body.id as number;
}

/** A sim run to completion, and its debit settled. */
async function spend(platform: PlatformHarness, account: Account, agentId: number) {
  const started = await platform.call("/runs", {
    key: account.key,
    body: { teammate_id: agentId, message: "hello", stream: false, permission_mode: "autonomous" },
  });
  expect(started.status).toBe(200);
  await vi.waitFor(
    async () => {
      const run = await platform.database.prisma.platformRun.findUniqueOrThrow({ where: { id: started.body.id } });
      expect(run.status).toBe("completed");
      expect(run.holdMicros).toBe(0n);
      expect(await platform.database.prisma.platformBalanceTransaction.count({ where: { runId: run.id } })).toBeGreaterThan(0);
    },
    { timeout: 20_000, interval: 50 },
  );
}

describe("PATCH /billing/auto-reload", () => {
  it.each([
    ["enabled missing", { threshold_cents: 100, amount_cents: 500 }, "enabled"],
    ["threshold_cents missing to enable", { enabled: true, amount_cents: 500 }, "threshold_cents"],
    ["amount_cents missing to enable", { enabled: true, threshold_cents: 100 }, "amount_cents"],
    ["amount_cents below 500", { enabled: true, threshold_cents: 100, amount_cents: 499 }, "amount_cents"],
    ["amount_cents above 1,000,000", { enabled: true, threshold_cents: 100, amount_cents: 1_000_001 }, "amount_cents"],
    ["threshold_cents negative", { enabled: true, threshold_cents: -1, amount_cents: 500 }, "threshold_cents"],
  ])("answers 422 naming the field when %s", async (_, body, field) => {
    const account = await stripe.signup();
    const answer = await stripe.call("/billing/auto-reload", { key: account.key, method: "PATCH", body });
    expect(answer.status).toBe(422);
    expect(answer.body.error.details.fields.map((each: { field: string }) => each.field)).toContain(field);
  });

  it("charges the saved card once per crossing of the threshold", async () => {
    const account = await stripe.signup({ require_end_user_id: false });
    await fake.pay(await topup(account, 1_000));
    const balance = await balanceOf(stripe, account);
    const thresholdCents = Math.floor(balance / 10_000);
    const set = await stripe.call("/billing/auto-reload", {
      key: account.key,
      method: "PATCH",
      body: { enabled: true, threshold_cents: thresholdCents, amount_cents: 1_500 },
    });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ enabled: true, threshold_cents: thresholdCents, amount_cents: 1_500, payment_method_saved: true, last_error: null });

    const agentId = await newAgent(stripe, account);
    await spend(stripe, account, agentId);
    const reloads = () => stripe.database.prisma.platformPayment.findMany({ where: { accountId: account.id, kind: "auto_reload" } });
    await vi.waitFor(async () => expect((await reloads()).map((payment) => payment.status)).toEqual(["completed"]), { timeout: 20_000, interval: 100 });
    const after = await balanceOf(stripe, account);
    expect(after).toBeGreaterThan(balance);
    expect(after).toBeLessThan(balance + 15_000_000);

    // Back above the threshold: re-armed; a run that keeps the balance above it charges nothing.
    await spend(stripe, account, agentId);
    const settings = await stripe.database.prisma.platformBillingSettings.findUniqueOrThrow({ where: { accountId: account.id } });
    expect(settings).toMatchObject({ autoReloadArmed: true, autoReloadCrossings: 1 });
    const [reload] = await reloads();
    expect(await reloads()).toHaveLength(1);
    const charges = fake.requests.filter((request) => request.path === "/v1/payment_intents" && request.body.metadata?.payment_id === String(reload!.id));
    expect(charges).toHaveLength(1);
    const receipts = (await stripe.call("/billing/receipts", { key: account.key })).body.data;
    expect(receipts.map((receipt: { kind: string }) => receipt.kind)).toEqual(["auto_reload", "topup"]);
  }, 90_000);

  it("records why nothing was charged when the card is declined", async () => {
    const account = await stripe.signup({ require_end_user_id: false });
    await fake.pay(await topup(account, 500));
    const thresholdCents = Math.floor((await balanceOf(stripe, account)) / 10_000);
    fake.declineNextCharge();
    await stripe.call("/billing/auto-reload", { key: account.key, method: "PATCH", body: { enabled: true, threshold_cents: thresholdCents, amount_cents: 500 } });
    const before = await balanceOf(stripe, account);
    await spend(stripe, account, await newAgent(stripe, account));
    await vi.waitFor(
      async () => {
        const settings = await stripe.database.prisma.platformBillingSettings.findUniqueOrThrow({ where: { accountId: account.id } });
        expect(settings.autoReloadLastError).toMatch(/declined/);
      },
      { timeout: 20_000, interval: 100 },
    );
    // The API shows it too (a PATCH answers the settings now).
    const shown = await stripe.call("/billing/auto-reload", { key: account.key, method: "PATCH", body: { enabled: false } });
    expect(shown.body.last_error).toMatch(/declined/);
    expect(await balanceOf(stripe, account)).toBeLessThan(before);
    expect(await stripe.database.prisma.platformPayment.findMany({ where: { accountId: account.id, kind: "auto_reload" }, select: { status: true } })).toEqual([{ status: "failed" }]);
  });
});

describe("PATCH /billing/alert-settings", () => {
  it.each([
    ["missing", {}],
    ["negative", { low_balance_threshold_cents: -1 }],
    ["above 10,000,000", { low_balance_threshold_cents: 10_000_001 }],
  ])("answers 422 naming low_balance_threshold_cents when it is %s", async (_, body) => {
    const account = await stripe.signup();
    const answer = await stripe.call("/billing/alert-settings", { key: account.key, method: "PATCH", body });
    expect(answer.status).toBe(422);
    expect(answer.body.error.details.fields[0].field).toBe("low_balance_threshold_cents");
  });

  it("mails the owner and writes a billing.low_balance webhook event once per crossing", async () => {
    const account = await manual.signup({ require_end_user_id: false });
    const hook = await manual.call("/webhooks", { key: account.key, body: { url: "https://hooks.example.com/billing", events: ["billing.low_balance"] } });
    expect(hook.status).toBe(201);
    expect(hook.body.events).toEqual(["billing.low_balance"]);
    const thresholdCents = Math.floor((await balanceOf(manual, account)) / 10_000);
    const set = await manual.call("/billing/alert-settings", { key: account.key, method: "PATCH", body: { low_balance_threshold_cents: thresholdCents } });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ low_balance_threshold_cents: thresholdCents });

    const agentId = await newAgent(manual, account);
    await spend(manual, account, agentId);
    const prisma = manual.database.prisma;
    const mails = () => prisma.platformMail.findMany({ where: { accountId: account.id, kind: "low_balance" } });
    const events = () => prisma.platformWebhookEvent.findMany({ where: { accountId: account.id, type: "billing.low_balance" } });
    await vi.waitFor(async () => expect(await mails()).toHaveLength(1), { timeout: 20_000, interval: 100 });
    expect((await mails())[0]!.to).toBe(account.email);
    expect(await events()).toHaveLength(1);
    expect((await events())[0]!.payload).toMatchObject({ type: "billing.low_balance", account_id: account.id, low_balance_threshold_cents: thresholdCents });

    // Still below: no second alert until the balance is back at or above the threshold.
    await spend(manual, account, agentId);
    expect(await prisma.platformBillingSettings.findUniqueOrThrow({ where: { accountId: account.id } })).toMatchObject({
      lowBalanceArmed: false,
      lowBalanceCrossings: 1,
    });
    // A credit back to the threshold re-arms it (the ledger then trims the balance to the threshold
    // exactly, so that the next run, which costs a few micro-USD, crosses it); that crossing alerts again.
    const short = thresholdCents * 10_000 - (await balanceOf(manual, account));
    const credit = await manual.call("/operator/credits", {
      headers: { authorization: `Bearer ${OPERATOR_KEY}` },
      body: { account_id: account.id, amount_cents: Math.ceil(short / 10_000), reason: "goodwill", actor: "ops@example.com" },
    });
    expect(credit.status).toBe(201);
    expect(await prisma.platformBillingSettings.findUniqueOrThrow({ where: { accountId: account.id } })).toMatchObject({ lowBalanceArmed: true });
    const surplus = (await balanceOf(manual, account)) - thresholdCents * 10_000;
    if (surplus > 0) await addLedgerEntry(prisma, account.id, { type: "adjustment", amountMicros: BigInt(-surplus), description: "trim to the threshold" });
    await spend(manual, account, agentId);
    await vi.waitFor(async () => expect(await mails()).toHaveLength(2), { timeout: 20_000, interval: 100 });
    expect(await events()).toHaveLength(2);
  }, 90_000);
});

// --- The manual adapter -----------------------------------------------------------------------------

describe("the manual adapter", () => {
  it("answers a page of ours for a top-up, which the operator credits with who and why", async () => {
    const account = await manual.signup();
    const before = await balanceOf(manual, account);
    const answer = await manual.call("/billing/topup", { key: account.key, body: { amount_cents: 2_500 } });
    expect(answer.status).toBe(200);
    expect(answer.body.checkout_url).toBe(`${manual.baseUrl}/billing/pay/${answer.body.reference}`);
    const page = await fetch(answer.body.checkout_url);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain(answer.body.reference);
    expect(html).toContain("ACME Bank");
    expect(html).toContain("$25.00");
    expect(await balanceOf(manual, account)).toBe(before);

    const credit = await manual.call("/operator/credits", {
      headers: { authorization: `Bearer ${OPERATOR_KEY}` },
      body: { account_id: account.id, amount_cents: 2_500, reason: "bank transfer 2026-11-26", actor: "owner@example.com", payment_reference: answer.body.reference },
    });
    expect(credit.status).toBe(201);
    expect(credit.body.payment_reference).toBe(answer.body.reference);
    expect(credit.body.balance_micros).toBe(before + 25_000_000);
    const ledger = (await manual.call("/billing/balance", { key: account.key })).body.transactions[0];
    expect(ledger).toMatchObject({ type: "topup", amount_micros: 25_000_000 });
    expect(ledger.description).toContain("owner@example.com");
    expect(ledger.description).toContain("bank transfer 2026-11-26");
    expect(await (await fetch(answer.body.checkout_url)).text()).toContain("Received");

    // Crediting the same payment again is refused: it is no longer pending.
    const again = await manual.call("/operator/credits", {
      headers: { authorization: `Bearer ${OPERATOR_KEY}` },
      body: { account_id: account.id, amount_cents: 2_500, reason: "again", actor: "owner@example.com", payment_reference: answer.body.reference },
    });
    expect(again.status).toBe(409);
    expect(await balanceOf(manual, account)).toBe(before + 25_000_000);

    const receipts = (await manual.call("/billing/receipts", { key: account.key })).body.data;
    expect(receipts).toHaveLength(1);
    expect(receipts[0]).toMatchObject({ id: credit.body.receipt.id, amount_cents: 2_500, payment_reference: answer.body.reference });
    const invoice = await manual.call(`/billing/receipts/${receipts[0].id}/invoice`, { key: account.key });
    expect(invoice.status).toBe(200);
    expect(invoice.body.hosted_invoice_url.startsWith(`${manual.baseUrl}/billing/receipt-pages/`)).toBe(true);
    const hosted = await fetch(invoice.body.hosted_invoice_url);
    expect(hosted.status).toBe(200);
    expect(await hosted.text()).toContain(receipts[0].number);
    // A forged token finds nothing.
    const forged = invoice.body.hosted_invoice_url.replace(/.$/, (last: string) => (last === "A" ? "B" : "A"));
    expect((await fetch(forged)).status).toBe(404);
  });

  it("credits without a pending payment, and refuses a wrong or missing operator key with 401", async () => {
    const account = await manual.signup();
    const before = await balanceOf(manual, account);
    const body = { account_id: account.id, amount_cents: 100, reason: "refund of incident 42", actor: "support@example.com" };
    const attempts: Record<string, string>[] = [{}, { authorization: "Bearer wrong-key" }, { authorization: `Bearer ${manual.baseUrl}` }];
    for (const headers of attempts) {
      const refused = await manual.call("/operator/credits", { headers, body });
      expect(refused.status).toBe(401);
    }
    // An API key is not the operator key.
    expect((await manual.call("/operator/credits", { key: account.key, body })).status).toBe(401);
    expect(await balanceOf(manual, account)).toBe(before);

    const credited = await manual.call("/operator/credits", { headers: { authorization: `Bearer ${OPERATOR_KEY}` }, body });
    expect(credited.status).toBe(201);
    expect(credited.body.receipt).toMatchObject({ kind: "manual_credit", amount_cents: 100, description: "Credit: refund of incident 42" });
    expect(await balanceOf(manual, account)).toBe(before + 1_000_000);

    const invalid = await manual.call("/operator/credits", { headers: { authorization: `Bearer ${OPERATOR_KEY}` }, body: { ...body, reason: " " } });
    expect(invalid.status).toBe(422);
    expect(invalid.body.error.details.fields[0].field).toBe("reason");
    const unknown = await manual.call("/operator/credits", { headers: { authorization: `Bearer ${OPERATOR_KEY}` }, body: { ...body, account_id: 999_999 } });
    expect(unknown.status).toBe(404);
  });

  it("answers the portal with a billing page of its own: plan, exact balance, receipts and payments, behind a hashed, expiring token", async () => {
    const account = await manual.signup();
    const other = await manual.signup();
    const prisma = manual.database.prisma;
    const topped = await manual.call("/billing/topup", { key: account.key, body: { amount_cents: 1_500 } });
    const credit = await manual.call("/operator/credits", {
      headers: { authorization: `Bearer ${OPERATOR_KEY}` },
      body: { account_id: account.id, amount_cents: 700, reason: "goodwill", actor: "owner@example.com" },
    });
    expect(credit.status).toBe(201);
    await prisma.platformAccount.update({ where: { id: account.id }, data: { balanceMicros: 1_019_829_700n } });

    const portal = await manual.call("/billing/portal", { key: account.key, method: "POST" });
    expect(portal.status).toBe(200);
    const url: string = portal.body.url;
    expect(url).toMatch(new RegExp(`^${manual.baseUrl.replace(/[.]/g, "\\.")}/billing/portal-pages/[\\w-]{43}$`));
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(page.headers.get("cache-control")).toBe("no-store");
    const html = await page.text();
    expect(html).toContain(account.email);
    expect(html).toContain('<dd data-testid="plan">prepaid</dd>');
    expect(html).toContain('<dd data-testid="balance">$1,019.8297</dd>');
    // The receipt, linked to its hosted page; the payments, the pending top-up among them.
    const receipt = credit.body.receipt as { number: string };
    expect(html).toMatch(new RegExp(`<a href="${manual.baseUrl.replace(/[.]/g, "\\.")}/billing/receipt-pages/[^"]+">${receipt.number}</a>`));
    expect(html).toContain(topped.body.reference);
    expect(html).toContain(credit.body.payment_reference);
    expect(html).toContain("pending");
    expect(html).toContain("$15.00");
    expect(html).not.toContain(other.email);

    // Only the token's SHA-256 is stored.
    const token = url.split("/").pop()!;
    const links = await prisma.platformBillingPortalLink.findMany({ where: { accountId: account.id } });
    expect(links.map((link) => link.tokenHash)).toEqual([sha256(token)]);
    // A forged or another's guess finds nothing; an expired link neither.
    expect((await fetch(url.replace(/.$/, (last) => (last === "A" ? "B" : "A")))).status).toBe(404);
    expect((await fetch(`${manual.baseUrl}/billing/portal-pages/nothing`)).status).toBe(404);
    await prisma.platformBillingPortalLink.updateMany({ where: { accountId: account.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const expired = await fetch(url);
    expect(expired.status).toBe(404);
    expect(((await expired.json()) as { error: { message: string } }).error.message).toContain("expired");
    // Each link is the account's own: the other account's page names the other account.
    const theirs = await manual.call("/billing/portal", { key: other.key, method: "POST" });
    expect(await (await fetch(theirs.body.url)).text()).toContain(other.email);
  });

  it("refuses plan checkout with 409 card_payments_unavailable, and has no Stripe webhook", async () => {
    const account = await manual.signup();
    const checkout = await manual.call("/billing/checkout", { key: account.key, body: { plan_id: "pro" } });
    expect(checkout.status).toBe(409);
    expect(checkout.body.error.error_code).toBe("card_payments_unavailable");
    expect((await manual.request("/billing/webhooks/stripe", { method: "POST", body: "{}" })).status).toBe(404);
  });

  it("answers 404 for an unknown payment page", async () => {
    expect((await fetch(`${manual.baseUrl}/billing/pay/pay_nothing`)).status).toBe(404);
  });
});
