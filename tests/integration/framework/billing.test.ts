// The owner's billing through tRPC (createCaller) over the embedded platform: the framework's platform
// account's balance and ledger, each tenant's spend, and the money procedures passed to the platform;
// tenant admins and members are refused every one of them.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { env } from "@/lib/env";
import { creditBalance } from "@/server/framework/tenancy/billing";
import { beginRun, runStarted } from "@/server/framework/tenancy/run-ledger";
import { startFramework, type FrameworkHarness } from "../../helpers/framework";

const OPERATOR_KEY = "op_framework_billing_test";

let fw: FrameworkHarness;
beforeAll(async () => {
  fw = await startFramework({ payments: { operatorKeySha256: createHash("sha256").update(OPERATOR_KEY).digest("hex") } });
});
afterAll(async () => {
  await fw?.close();
});

const OWNER = "owner@inlay.test";

describe("billing.overview", () => {
  it("shows the owner the platform account's balance, its ledger and each tenant's spend this month", async () => {
    const { prisma } = fw.database;
    const acme = await prisma.tenant.findUniqueOrThrow({ where: { slug: "acme" } });
    const member = await prisma.user.findUniqueOrThrow({ where: { email: "member@acme.test" } });
    // A run the ledger settled at 1234 micro-USD (run 999_999: none of the platform's, no webhook for it).
    const ticket = await beginRun(prisma, { tenantId: acme.id, userId: member.id });
    await runStarted(prisma, ticket, 999_999, { run: { id: 999_999, status: "completed", usage: { cost_usd: "0.001234" } } });

    const owner = await fw.callerFor(OWNER);
    const overview = await owner.billing.overview();
    // The embedded account's operating credit is the setting (FRAMEWORK_OPERATOR_CREDIT_MICROS), once.
    expect(overview.mode).toBe("embedded");
    // Newest first: the operating credit came after the sign-up credit, and the balance is their sum.
    const [credit, ...older] = overview.balance.transactions;
    expect(credit).toMatchObject({ type: "adjustment", amount_micros: env.FRAMEWORK_OPERATOR_CREDIT_MICROS });
    expect(credit!.description).toContain("FRAMEWORK_OPERATOR_CREDIT_MICROS");
    expect(older.every((entry) => entry.id < credit!.id)).toBe(true);
    expect(overview.balance.balance_micros).toBe(credit!.balance_after_micros);
    const acmeSpend = overview.tenants.find((tenant) => tenant.slug === "acme");
    expect(acmeSpend).toMatchObject({ runs: 1, costMicros: 1234 });
    expect(overview.tenants[0]!.slug).toBe("acme");
    expect(overview.tenantsCostMicros).toBe(1234);
    // The same spend without the platform (the page shows it while the balance loads, or fails).
    const spend = await owner.billing.spend();
    expect(spend.tenants).toEqual(overview.tenants);
    expect(spend.tenantsCostMicros).toBe(1234);
    expect(spend.creditConfigured).toBe(overview.creditConfigured);
    // The first platform call provisions the framework's account (sign-up, key, credit): slow on a busy machine.
  }, 120_000);
});

describe("owner only", () => {
  const calls: [string, (caller: Awaited<ReturnType<FrameworkHarness["callerFor"]>>) => Promise<unknown>][] = [
    ["overview", (caller) => caller.billing.overview()],
    ["spend", (caller) => caller.billing.spend()],
    ["topUp", (caller) => caller.billing.topUp({ amountCents: 2500 })],
    ["setAutoReload", (caller) => caller.billing.setAutoReload({ enabled: false })],
    ["setAlertSettings", (caller) => caller.billing.setAlertSettings({ lowBalanceThresholdCents: 1000 })],
    ["plan", (caller) => caller.billing.plan()],
    ["setOverage", (caller) => caller.billing.setOverage({ enabled: true, monthlyCapCents: 1000 })],
    ["checkout", (caller) => caller.billing.checkout({ planId: "pro", billingPeriod: "monthly" })],
    ["portal", (caller) => caller.billing.portal()],
    ["activateFree", (caller) => caller.billing.activateFree()],
    ["receipts", (caller) => caller.billing.receipts()],
    ["invoice", (caller) => caller.billing.invoice({ receiptId: 1 })],
    ["credit", (caller) => caller.billing.credit({ amountCents: 100, reason: "a gift" })],
  ];

  it.each(["admin@acme.test", "member@acme.test"])("refuses %s every billing procedure", async (email) => {
    const caller = await fw.callerFor(email);
    for (const [name, call] of calls) {
      await expect(call(caller), name).rejects.toMatchObject({ code: "FORBIDDEN" });
    }
  });
});

describe("inputs", () => {
  it("refuses amounts outside the platform's ranges before calling it", async () => {
    const owner = await fw.callerFor(OWNER);
    await expect(owner.billing.topUp({ amountCents: 499 })).rejects.toMatchObject({ code: "BAD_REQUEST", message: expect.stringContaining("$5.00") });
    await expect(owner.billing.topUp({ amountCents: 100_000_001 })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(owner.billing.setAutoReload({ enabled: true, thresholdCents: 1000, amountCents: 499 })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(owner.billing.setAlertSettings({ lowBalanceThresholdCents: -1 })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(owner.billing.credit({ amountCents: 100, reason: "  " })).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });
});

describe("the procedures call the platform (manual payments adapter)", () => {
  it("a top-up answers where to pay; the balance moves only when the owner credits it, with who and why in the ledger and a receipt", async () => {
    const owner = await fw.callerFor(OWNER);
    const before = (await owner.billing.overview()).balance.balance_micros;

    const { checkoutUrl } = await owner.billing.topUp({ amountCents: 2500 });
    // The platform's manual page is for its customers: the owner is sent to the console's page instead.
    expect(checkoutUrl).toMatch(/^\/admin\/billing\/pay\/pay_[0-9a-f]+\?amount=2500$/);
    expect((await owner.billing.overview()).balance.balance_micros).toBe(before);

    // Without INLAY_OPERATOR_KEY (this test's environment) the procedure says what to set up.
    await expect(owner.billing.credit({ amountCents: 2500, reason: "Bank transfer 42" })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringContaining("INLAY_OPERATOR_KEY"),
    });
    // With it, the service the procedure calls: a wrong key is the platform's 401, the right one credits.
    const connection = await fw.connect();
    const input = { amountCents: 2500, reason: "Bank transfer 42", actor: OWNER };
    await expect(creditBalance(fw.database.prisma, connection, "op_wrong", input)).rejects.toMatchObject({ status: 401 });
    await creditBalance(fw.database.prisma, connection, OPERATOR_KEY, input);
    const after = await owner.billing.overview();
    expect(after.balance.balance_micros).toBe(before + 25_000_000);
    expect(after.balance.transactions[0]).toMatchObject({ amount_micros: 25_000_000 });
    expect(after.balance.transactions[0]!.description).toContain("Bank transfer 42");
    expect(after.balance.transactions[0]!.description).toContain(OWNER);

    const { receipts } = await owner.billing.receipts();
    expect(receipts[0]).toMatchObject({ amount_cents: 2500, kind: "manual_credit" });
    const invoice = await owner.billing.invoice({ receiptId: receipts[0]!.id });
    expect(invoice).toMatchObject({ receipt_id: receipts[0]!.id, number: receipts[0]!.number });
  });

  it("saves the alert and auto-reload settings, and passes the platform's refusals on", async () => {
    const owner = await fw.callerFor(OWNER);
    expect(await owner.billing.setAlertSettings({ lowBalanceThresholdCents: 1500 })).toMatchObject({ low_balance_threshold_cents: 1500 });
    expect(await owner.billing.setAutoReload({ enabled: true, thresholdCents: 1000, amountCents: 2000 })).toMatchObject({
      enabled: true,
      threshold_cents: 1000,
      amount_cents: 2000,
      payment_method_saved: false,
    });
    expect(await owner.billing.setAutoReload({ enabled: false })).toMatchObject({ enabled: false });
    // No card provider on this installation: the portal is the platform's own billing page.
    const portal = await owner.billing.portal();
    expect(portal.url).toMatch(/\/billing\/portal-pages\/[\w-]{43}$/);
  });

  it("shows the plan and the catalogue", async () => {
    const owner = await fw.callerFor(OWNER);
    const { usage, plans } = await owner.billing.plan();
    expect(typeof usage.plan).toBe("string");
    expect(plans.map((plan) => plan.slug)).toContain("free");
    expect(plans.length).toBeGreaterThan(1);
  });
});
