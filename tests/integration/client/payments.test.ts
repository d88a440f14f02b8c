// client.billing's payments and client.operator against a real platform on the manual adapter: a
// top-up credited by the operator, receipts and their invoice, the thresholds, and errors as classes.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AuthenticationError,
  ConflictError,
  NotFoundError,
  ValidationError,
  createPlatformClient,
  type PlatformClient,
} from "@inlay/core/platform-client";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";

const OPERATOR_KEY = "client-test-operator-key";
let platform: PlatformHarness;
let account: Account;
let client: PlatformClient;

beforeAll(async () => {
  platform = await startPlatform();
  platform.config.payments = {
    provider: "manual",
    operatorKeySha256: createHash("sha256").update(OPERATOR_KEY).digest("hex"),
  };
  account = await platform.signup();
  client = createPlatformClient({ baseUrl: platform.baseUrl, apiKey: account.key });
});
afterAll(() => platform.close());

describe("client.billing payments", () => {
  it("tops up, has the operator credit it, and lists the receipt with its invoice", async () => {
    const link = await client.billing.topup({ amount_cents: 1_500 });
    expect(link.checkout_url).toBe(`${platform.baseUrl}/billing/pay/${link.reference}`);

    // The operator key goes in its own header: the client's API key does not authorize this call.
    const credit = await client.operator.credit(OPERATOR_KEY, {
      account_id: account.id,
      amount_cents: 1_500,
      reason: "invoice 7 paid by transfer",
      actor: "owner@example.com",
      payment_reference: link.reference,
    });
    expect(credit.payment_reference).toBe(link.reference);
    await expect(client.operator.credit("wrong", { account_id: account.id, amount_cents: 1, reason: "r", actor: "a" })).rejects.toBeInstanceOf(
      AuthenticationError,
    );

    const receipts = await client.billing.receipts.listAll();
    expect(receipts.map((receipt) => receipt.id)).toEqual([credit.receipt.id]);
    const invoice = await client.billing.receipts.invoice(credit.receipt.id);
    expect(invoice).toMatchObject({ receipt_id: credit.receipt.id, number: credit.receipt.number });
    expect(invoice.hosted_invoice_url.startsWith(`${platform.baseUrl}/billing/receipt-pages/`)).toBe(true);
    await expect(client.billing.receipts.invoice(credit.receipt.id + 1_000)).rejects.toBeInstanceOf(NotFoundError);
  });

  it("sets auto-reload and the low-balance alert", async () => {
    const reload = await client.billing.setAutoReload({ enabled: true, threshold_cents: 100, amount_cents: 500 });
    expect(reload).toMatchObject({ enabled: true, threshold_cents: 100, amount_cents: 500, payment_method_saved: false });
    expect(await client.billing.setAlertSettings({ low_balance_threshold_cents: 200 })).toEqual({ low_balance_threshold_cents: 200 });
    const invalid = await client.billing.setAutoReload({ enabled: true, threshold_cents: 100, amount_cents: 10 }).catch((error: unknown) => error);
    expect(invalid).toBeInstanceOf(ValidationError);
  });

  it("answers card-only operations with ConflictError on a manual installation, and the portal with its own page", async () => {
    expect((await client.billing.portal()).url).toMatch(/\/billing\/portal-pages\/[\w-]{43}$/);
    await expect(client.billing.checkout({ plan_id: "pro" })).rejects.toBeInstanceOf(ConflictError);
    await expect(client.billing.topup({ amount_cents: 100 })).rejects.toBeInstanceOf(ValidationError);
  });
});
