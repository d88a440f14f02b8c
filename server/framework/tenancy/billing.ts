// The installation owner's billing: the vendor's platform account (its balance and ledger, top-ups,
// auto-reload and alert settings, plan, receipts) reached through the platform client like any other
// platform call, beside what each tenant spent this month from the framework's own counters. The
// owner check is the caller's (billing router: ownerProcedure); nothing here is per tenant or member.
import type { PlatformClient } from "@inlay/core/platform-client";
import type {
  AlertSettingsInput,
  AutoReloadInput,
  CreditBalanceInput,
  OverageInput,
  TopUpInput,
} from "@inlay/core/schemas/owner-billing";
import type { Db } from "@/server/shared/db";
import { TenancyError } from "./errors";
import type { PlatformConnection } from "./platform-connection";
import { findFrameworkAccount } from "./platform-repository";
import { listTenantsForOwner } from "./tenants";

export interface TenantSpend {
  id: string;
  name: string;
  slug: string;
  runs: number;
  /** This month's spend, micro-USD. */
  costMicros: number;
  /** The tenant's monthly cost limit, whole cents as set; null: none. */
  limitCents: number | null;
}

/** The balance with its ledger (newest first) and each tenant's spend this month, largest first. */
export async function getBillingOverview(prisma: Db, connection: PlatformConnection, now = new Date()) {
  const [balance, spend] = await Promise.all([connection.client.billing.balance(), getTenantSpend(prisma, now)]);
  return { mode: connection.mode, balance, ...spend };
}

/**
 * Each tenant's spend this month, largest first, from the framework's own records: known even when
 * the platform does not answer, so the billing page shows it without waiting for the balance.
 */
export async function getTenantSpend(prisma: Db, now = new Date()) {
  const spend: TenantSpend[] = (await listTenantsForOwner(prisma, now))
    .map((tenant) => ({
      id: tenant.id,
      name: tenant.name,
      slug: tenant.slug,
      runs: tenant.usage.runs,
      costMicros: tenant.usage.costMicros,
      limitCents: tenant.limits.costPerMonthCents,
    }))
    .sort((a, b) => b.costMicros - a.costMicros || a.name.localeCompare(b.name));
  return { tenants: spend, tenantsCostMicros: spend.reduce((sum, tenant) => sum + tenant.costMicros, 0) };
}

/** The console's own page for a pending top-up on a platform that takes no card payments. */
export const manualPaymentPath = (reference: string, amountCents: number) =>
  `/admin/billing/pay/${encodeURIComponent(reference)}?amount=${amountCents}`;

/**
 * POST /billing/topup: where to send the owner to pay; the balance is credited when payment lands. A
 * platform without a card provider answers with its manual payment page (GET /billing/pay/<reference>),
 * written for its customers; the owner is sent to the console's page for it instead, which says what
 * they can do (credit it themselves when they run the platform) and leads back.
 */
export async function startTopUp(client: PlatformClient, input: TopUpInput): Promise<{ checkoutUrl: string }> {
  const { checkout_url, reference } = await client.billing.topup({ amount_cents: input.amountCents });
  const manual = new URL(checkout_url, "http://platform.invalid").pathname.endsWith(`/billing/pay/${encodeURIComponent(reference)}`);
  return { checkoutUrl: manual ? manualPaymentPath(reference, input.amountCents) : checkout_url };
}

export async function setAutoReload(client: PlatformClient, input: AutoReloadInput) {
  return client.billing.setAutoReload(
    input.enabled
      ? { enabled: true, threshold_cents: input.thresholdCents, amount_cents: input.amountCents }
      : { enabled: false },
  );
}

export async function setAlertSettings(client: PlatformClient, input: AlertSettingsInput) {
  return client.billing.setAlertSettings({ low_balance_threshold_cents: input.lowBalanceThresholdCents });
}

/** The account's plan this period (GET /usage) and what it could move to (GET /billing/plans). */
export async function getPlan(client: PlatformClient) {
  const [usage, plans] = await Promise.all([client.usage.get(), client.billing.plans({ include_free: true })]);
  return { usage, plans };
}

export async function setOverage(client: PlatformClient, input: OverageInput) {
  return client.billing.setOverage({ enabled: input.enabled, monthly_cap_cents: input.monthlyCapCents });
}

export async function checkoutPlan(client: PlatformClient, input: { planId: string; billingPeriod: "monthly" | "annual" }) {
  const link = await client.billing.checkout({ plan_id: input.planId, billing_period: input.billingPeriod });
  return { url: link.checkout_url };
}

export async function openBillingPortal(client: PlatformClient) {
  const link = await client.billing.portal();
  return { url: link.url };
}

export async function activateFreePlan(client: PlatformClient) {
  return client.billing.activateFree();
}

/** Receipts, newest first, as the platform pages them (the first page: the console shows recent ones). */
export async function listReceipts(client: PlatformClient) {
  const page = await client.billing.receipts.list({ limit: 20 });
  return { receipts: page.data, hasMore: page.has_more };
}

export async function getReceiptInvoice(client: PlatformClient, receiptId: number) {
  return client.billing.receipts.invoice(receiptId);
}

/**
 * The manual payments adapter: the owner credits the balance by hand through POST /operator/credits,
 * with the operator key (INLAY_OPERATOR_KEY, or development's own: operator-key.ts), never the account's
 * API key. The ledger entry records who (the owner's email, from the session, never the form) and why;
 * with a payment reference, the pending top-up it pays is completed.
 */
export async function creditBalance(
  prisma: Db,
  connection: PlatformConnection,
  operatorKey: string | undefined,
  input: CreditBalanceInput & { actor: string },
) {
  if (!operatorKey) {
    throw new TenancyError(
      "BAD_REQUEST",
      "crediting by hand is not set up: set INLAY_OPERATOR_KEY (the platform holds its SHA-256 in INLAY_OPERATOR_KEY_SHA256)",
    );
  }
  return connection.client.operator.credit(operatorKey, {
    account_id: await frameworkAccountId(prisma, connection),
    amount_cents: input.amountCents,
    reason: input.reason,
    actor: input.actor,
    ...(input.paymentReference ? { payment_reference: input.paymentReference } : {}),
  });
}

/** The vendor's platform account: the embedded one is on record; a remote one says in its export. */
async function frameworkAccountId(prisma: Db, connection: PlatformConnection): Promise<number> {
  if (connection.mode === "embedded") {
    const row = await findFrameworkAccount(prisma);
    if (row?.accountId) return row.accountId;
  }
  return (await connection.client.account.export()).account.id;
}
