// Payments through the adapter (server/platform/payments/): top-ups, plan checkout, the portal, the
// provider's webhooks, the operator's manual credits, receipts, and the balance crossings that drive
// auto-reload and the low-balance alert. Every credit goes through completeAndCredit(): the payment's
// pending → completed UPDATE is the guard, so a webhook delivered twice, a success redirect racing it
// and a retried job credit once. The design is in docs/platform-api.md, "Payments".
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { z } from "zod";
import { MAX_INT_ID } from "@inlay/core/schemas/common";
import type { OperatorCreditRequest, Receipt } from "@inlay/core/schemas/payments";
import type { Db } from "../../repositories/db";
import { deriveKey } from "@/server/shared/secret-box";
import type { PlatformConfig } from "../../platform-config";
import { PlatformError } from "../../errors";
import type { JobQueue } from "../../infrastructure/job-queue";
import type { CheckoutState, ProviderInvoice } from "../../payments/adapter";
import { paymentAdapterOf } from "../../payments/configured-adapter";
import { noCardPayments } from "../../payments/settings";
import { paymentSettings } from "../../payments/settings";
import { addLedgerEntryIn } from "../../repositories/billing";
import {
  completePaymentIn,
  createPayment,
  createPortalLink,
  createReceiptIn,
  eventApplied,
  failPendingPayment,
  findAccountContact,
  findBillingSettings,
  watchesBalance,
  findFirstPaymentOfSubscription,
  findLivePortalLink,
  findPaymentById,
  findPaymentByInvoice,
  findPaymentByReference,
  findPaymentBySession,
  findReceiptById,
  findReceiptInAccount,
  listPaymentRows,
  listReceiptRows,
  notePaymentFacts,
  type PaymentRow,
  recordEventIn,
  rearmCrossings,
  type ReceiptRow,
  saveBillingSettings,
  setPaymentCheckout,
  setReceiptInvoiceIn,
  takeAutoReloadCrossing,
  takeLowBalanceCrossing,
} from "../../repositories/payments";
import type { AuthContext } from "../account/auth";
import { usdDisplay } from "./billing";
import { toPage } from "../pagination";
import { activatePlan, endPlan, findPlan, type BillingPeriod } from "./plans";
import { getUsage } from "./usage";

export interface PaymentContext {
  prisma: Db;
  config: PlatformConfig;
  /** Where auto-reload charges and alerts are enqueued; absent, crossings are not checked. */
  jobs?: JobQueue;
}

export const AUTO_RELOAD_JOB = "billing-auto-reload";
export const LOW_BALANCE_JOB = "billing-low-balance";

const MICROS_PER_CENT = 10_000n;
const dollars = (cents: number) => `$${usdDisplay(BigInt(cents) * MICROS_PER_CENT)}`;
const newReference = () => `pay_${randomBytes(12).toString("hex")}`;

// ---------------------------------------------------------------------------------------------
// Checkout: top-ups and plans

async function accountOf(prisma: Db, accountId: number) {
  const account = await findAccountContact(prisma, accountId);
  if (!account) throw new PlatformError({ type: "not_found", message: "account not found" });
  return account;
}

/** POST /billing/topup: a pending payment and where to pay it; the balance is credited when it completes. */
export async function startTopup(ctx: PaymentContext, auth: AuthContext, amountCents: number) {
  const adapter = paymentAdapterOf(ctx.config);
  const account = await accountOf(ctx.prisma, auth.accountId);
  const reference = newReference();
  const payment = await createPayment(ctx.prisma, { accountId: account.id, kind: "topup", provider: adapter.name, amountCents, reference });
  const base = ctx.config.publicBaseUrl;
  if (!adapter.takesCards) {
    const url = `${base}/billing/pay/${reference}`;
    await setPaymentCheckout(ctx.prisma, payment.id, { sessionId: null, checkoutUrl: url });
    return { checkout_url: url, reference };
  }
  return openCheckout(ctx, account, payment, { description: `Inlay balance top-up (${dollars(amountCents)})` });
}

/** The provider's checkout for a pending payment (a top-up or a plan), its customer remembered. */
async function openCheckout(
  ctx: PaymentContext,
  account: { id: number; email: string },
  payment: PaymentRow,
  what: { description: string; interval?: "month" | "year" },
) {
  const adapter = paymentAdapterOf(ctx.config);
  const settings = await findBillingSettings(ctx.prisma, account.id);
  const base = ctx.config.publicBaseUrl;
  const created = await adapter.createCheckout({
    kind: payment.kind === "plan" ? "plan" : "topup",
    paymentId: payment.id,
    reference: payment.reference,
    accountId: account.id,
    email: account.email,
    customerId: settings?.providerCustomerId ?? null,
    amountCents: payment.amountCents,
    ...what,
    successUrl: `${base}/billing/checkout/return?session_id={CHECKOUT_SESSION_ID}`,
    cancelUrl: `${base}/billing/checkout/return?cancelled=${payment.reference}`,
  });
  await rememberCustomer(ctx.prisma, account.id, created.customerId, settings?.providerCustomerId ?? null);
  await setPaymentCheckout(ctx.prisma, payment.id, { sessionId: created.sessionId, checkoutUrl: created.url });
  return { checkout_url: created.url, reference: payment.reference };
}

async function rememberCustomer(prisma: Db, accountId: number, customerId: string | null, known: string | null) {
  if (customerId && customerId !== known) await saveBillingSettings(prisma, accountId, { providerCustomerId: customerId });
}

/** POST /billing/checkout: a subscription to a plan through the provider. */
export async function startPlanCheckout(ctx: PaymentContext, auth: AuthContext, planId: string, billingPeriod: BillingPeriod) {
  const adapter = paymentAdapterOf(ctx.config);
  if (!adapter.takesCards) throw noCardPayments();
  const plan = findPlan(planId);
  if (!plan) {
    throw new PlatformError({ type: "validation_error", message: `plan_id: no plan "${planId}"`, details: { fields: [{ field: "plan_id", message: "unknown plan" }] } });
  }
  const amountCents = billingPeriod === "annual" ? plan.annual_price_cents : plan.monthly_price_cents;
  if (amountCents <= 0) {
    throw new PlatformError({
      type: "validation_error",
      message: `plan_id: "${planId}" is not purchasable (POST /billing/activate-free activates the free plan)`,
      details: { fields: [{ field: "plan_id", message: "not purchasable" }] },
    });
  }
  const account = await accountOf(ctx.prisma, auth.accountId);
  const reference = newReference();
  const payment = await createPayment(ctx.prisma, {
    accountId: account.id,
    kind: "plan",
    provider: adapter.name,
    amountCents,
    reference,
    planSlug: plan.slug,
    billingPeriod,
  });
  return openCheckout(ctx, account, payment, {
    description: `Inlay ${plan.display_name} plan (${billingPeriod})`,
    interval: billingPeriod === "annual" ? "year" : "month",
  });
}

/**
 * POST /billing/portal: the provider's customer portal (cards, invoices, the subscription); without a
 * card provider, the billing page this installation serves itself (billingPortalPage).
 */
export async function openPortal(ctx: PaymentContext, auth: AuthContext) {
  const adapter = paymentAdapterOf(ctx.config);
  if (!adapter.takesCards) return { url: await openHostedBillingPage(ctx, auth.accountId) };
  const account = await accountOf(ctx.prisma, auth.accountId);
  const settings = await findBillingSettings(ctx.prisma, account.id);
  let customerId = settings?.providerCustomerId ?? null;
  if (!customerId) {
    customerId = await adapter.createCustomer(account.id, account.email);
    await saveBillingSettings(ctx.prisma, account.id, { providerCustomerId: customerId });
  }
  return { url: await adapter.createPortal(customerId, `${ctx.config.publicBaseUrl}/billing/checkout/return?portal=1`) };
}

// The hosted billing page: what a provider's portal shows that this installation knows (the plan, the
// balance, receipts, payments), read-only, behind a link whose token is the credential. Like a portal
// session the link is short-lived; only the token's SHA-256 is stored.
const PORTAL_LINK_TTL_MS = 60 * 60 * 1000;
const PORTAL_PAGE_ROWS = 20;
const hashPortalToken = (token: string) => createHash("sha256").update(token).digest("hex");

async function openHostedBillingPage(ctx: PaymentContext, accountId: number, now = new Date()) {
  const token = randomBytes(32).toString("base64url");
  await createPortalLink(ctx.prisma, { tokenHash: hashPortalToken(token), accountId, expiresAt: new Date(now.getTime() + PORTAL_LINK_TTL_MS) }, now);
  return `${ctx.config.publicBaseUrl}/billing/portal-pages/${token}`;
}

/** GET /billing/portal-pages/<token>: the account's billing, or 404 for an unknown or expired link. */
export async function billingPortalPage(ctx: PaymentContext, token: string, now = new Date()) {
  const link = /^[\w-]{43}$/.test(token) ? await findLivePortalLink(ctx.prisma, hashPortalToken(token), now) : null;
  if (!link) {
    throw new PlatformError({ type: "not_found", message: "this billing link is unknown or has expired: open the billing page again (POST /billing/portal)" });
  }
  const [account, usage, receipts, payments] = await Promise.all([
    findAccountContact(ctx.prisma, link.accountId),
    getUsage(ctx.prisma, link.accountId, now),
    listReceiptRows(ctx.prisma, link.accountId, { limit: PORTAL_PAGE_ROWS }),
    listPaymentRows(ctx.prisma, link.accountId, PORTAL_PAGE_ROWS),
  ]);
  return {
    email: account?.email ?? "",
    plan: { name: usage.plan, runs_used: usage.runs_used, runs_limit: usage.runs_limit, period_start: usage.period_start, period_end: usage.period_end },
    balance_micros: usage.balance_micros,
    receipts: receipts.slice(0, PORTAL_PAGE_ROWS).map((row) => ({ ...toReceipt(row), url: receiptPageUrl(ctx.config, row) })),
    payments: payments.map((payment) => ({
      reference: payment.reference,
      kind: payment.kind,
      status: payment.status,
      amount_cents: payment.amountCents,
      created_at: payment.createdAt.toISOString(),
    })),
  };
}

// ---------------------------------------------------------------------------------------------
// Completion, exactly once

interface Completion {
  amountCents?: number;
  providerPaymentId?: string | null;
  providerSubscriptionId?: string | null;
  providerInvoiceId?: string | null;
  invoice?: ProviderInvoice | null;
  actor?: string;
  reason?: string;
}

function describe(payment: PaymentRow, amountCents: number): { ledger: string; receipt: string } {
  switch (payment.kind) {
    case "plan":
      return { ledger: "", receipt: `${payment.planSlug ?? "plan"} plan (${payment.billingPeriod ?? "monthly"})` };
    case "auto_reload":
      return { ledger: `Auto-reload ${payment.reference}`, receipt: `Auto-reload ${dollars(amountCents)}` };
    case "manual_credit":
      return {
        ledger: `Credit by ${payment.actor ?? "operator"}: ${payment.reason ?? ""} [${payment.reference}]`,
        receipt: `Credit: ${payment.reason ?? ""}`,
      };
    default:
      return { ledger: `Top-up ${payment.reference}`, receipt: `Balance top-up ${dollars(amountCents)}` };
  }
}

/**
 * In the caller's transaction: completes the payment if it is still pending, then credits the balance
 * (or activates the plan) and writes its receipt. False when another caller completed it first.
 */
async function completeAndCredit(tx: Db, payment: PaymentRow, done: Completion): Promise<number | null> {
  const moved = await completePaymentIn(tx, payment.id, {
    amountCents: done.amountCents,
    providerPaymentId: done.providerPaymentId,
    providerSubscriptionId: done.providerSubscriptionId,
    providerInvoiceId: done.providerInvoiceId,
    actor: done.actor,
    reason: done.reason,
  });
  if (!moved) return null;
  const completed = { ...payment, ...(done.actor ? { actor: done.actor, reason: done.reason ?? null } : {}) };
  const amountCents = done.amountCents ?? payment.amountCents;
  const text = describe(completed, amountCents);
  if (payment.kind === "plan") {
    await activatePlan(tx, payment.accountId, {
      slug: payment.planSlug as Parameters<typeof activatePlan>[2]["slug"],
      billingPeriod: (payment.billingPeriod ?? "monthly") as BillingPeriod,
      providerSubscriptionId: done.providerSubscriptionId ?? undefined,
      currentPeriodEnd: done.invoice?.periodEnd ?? undefined,
    });
  } else {
    const balance = await addLedgerEntryIn(tx, payment.accountId, {
      type: "topup",
      amountMicros: BigInt(amountCents) * MICROS_PER_CENT,
      description: text.ledger,
    });
    if (balance === null) throw new Error(`crediting payment ${payment.id}: account ${payment.accountId} is gone`);
  }
  const receipt = await createReceiptIn(tx, {
    accountId: payment.accountId,
    paymentId: payment.id,
    amountCents,
    description: text.receipt,
    hostedInvoiceUrl: done.invoice?.hostedUrl ?? null,
    invoicePdfUrl: done.invoice?.pdfUrl ?? null,
    pageSalt: randomBytes(16).toString("hex"),
  });
  return receipt.id;
}

/** Runs `apply` in one transaction with the event's record: a redelivered event applies nothing. */
async function applyOnce(ctx: PaymentContext, eventId: string | undefined, type: string, apply: (tx: Db) => Promise<number | null>) {
  const provider = paymentAdapterOf(ctx.config).name;
  const result = await ctx.prisma.$transaction(async (transaction) => {
    const tx = transaction as unknown as Db;
    if (eventId !== undefined && !(await recordEventIn(tx, provider, eventId, type))) return { duplicate: true, accountId: null };
    return { duplicate: false, accountId: await apply(tx) };
  });
  if (result.accountId !== null) await checkBalanceCrossings(ctx, result.accountId);
  return result;
}

/** Applies a checkout session the provider reports complete; the webhook and the success redirect both land here. */
async function applyCheckout(ctx: PaymentContext, state: CheckoutState, eventId?: string, type = "checkout.session.completed") {
  const payment = (await findPaymentBySession(ctx.prisma, state.sessionId)) ?? null;
  // A session of another installation, or not ours: nothing to apply, and nothing to retry.
  if (!payment || (state.paymentId !== null && state.paymentId !== payment.id)) return { duplicate: false, applied: false };
  if (!state.paid) return { duplicate: false, applied: false };
  let applied = false;
  const result = await applyOnce(ctx, eventId, type, async (tx) => {
    applied = (await completeAndCredit(tx, payment, {
      providerPaymentId: state.paymentIntentId,
      providerSubscriptionId: state.subscriptionId,
      providerInvoiceId: payment.kind === "plan" ? state.invoice?.id : undefined,
      invoice: state.invoice,
    })) !== null;
    if (!applied && state.invoice) {
      // Completed first by the invoice or the other path: the receipt still gets the invoice's URLs.
      await setReceiptInvoiceIn(tx, payment.id, { hostedInvoiceUrl: state.invoice.hostedUrl, invoicePdfUrl: state.invoice.pdfUrl });
    }
    if (state.paymentMethodId && payment.kind === "topup") {
      await saveBillingSettings(tx, payment.accountId, { savedPaymentMethod: state.paymentMethodId, ...(state.customerId ? { providerCustomerId: state.customerId } : {}) });
    }
    return payment.accountId;
  });
  return { duplicate: result.duplicate, applied };
}

/** The success redirect (GET /billing/checkout/return): asks the provider, and applies what it says. */
export async function returnFromCheckout(ctx: PaymentContext, sessionId: string) {
  const adapter = paymentAdapterOf(ctx.config);
  if (!adapter.takesCards) throw new PlatformError({ type: "not_found", message: "no such checkout session" });
  const payment = await findPaymentBySession(ctx.prisma, sessionId);
  if (!payment) throw new PlatformError({ type: "not_found", message: "no such checkout session" });
  const state = await adapter.retrieveCheckout(sessionId);
  await applyCheckout(ctx, state);
  const now = await findPaymentById(ctx.prisma, payment.id);
  return { status: now?.status ?? payment.status, kind: payment.kind, amountCents: payment.amountCents, reference: payment.reference };
}

/** POST /billing/webhooks/stripe: verified, then applied once per event id. */
export async function receiveProviderWebhook(ctx: PaymentContext, rawBody: string, signature: string | undefined) {
  const adapter = paymentAdapterOf(ctx.config);
  if (adapter.name !== "stripe") throw new PlatformError({ type: "not_found", message: "this installation takes no Stripe payments" });
  const event = await adapter.parseWebhook(rawBody, signature);
  if (await eventApplied(ctx.prisma, adapter.name, event.id)) return { received: true as const, duplicate: true };
  switch (event.kind) {
    case "checkout_completed": {
      // Outside the transaction: never hold one open across a call to the provider.
      const state = await adapter.retrieveCheckout(event.sessionId);
      const result = await applyCheckout(ctx, state, event.id, event.type);
      if (!result.applied && !result.duplicate) await applyOnce(ctx, event.id, event.type, async () => null);
      return { received: true as const, duplicate: result.duplicate };
    }
    case "invoice_paid":
      return { received: true as const, duplicate: (await applyInvoice(ctx, event.invoice, event.id, event.type)).duplicate };
    case "charge_succeeded": {
      const payment = event.paymentId === null ? null : await findPaymentById(ctx.prisma, event.paymentId);
      const result = await applyOnce(ctx, event.id, event.type, async (tx) => {
        // Checkout top-ups complete through their session (which also saves the card); here only auto-reloads.
        if (!payment || payment.kind !== "auto_reload") return null;
        await completeAndCredit(tx, payment, { providerPaymentId: event.paymentIntentId });
        return payment.accountId;
      });
      return { received: true as const, duplicate: result.duplicate };
    }
    case "subscription_ended": {
      const first = await findFirstPaymentOfSubscription(ctx.prisma, event.subscriptionId);
      const accountId = first?.accountId ?? event.accountId;
      const result = await applyOnce(ctx, event.id, event.type, async (tx) => {
        if (accountId !== null) await endPlan(tx, accountId, event.subscriptionId);
        return null;
      });
      return { received: true as const, duplicate: result.duplicate };
    }
    default: {
      const result = await applyOnce(ctx, event.id, event.type, async () => null);
      return { received: true as const, duplicate: result.duplicate };
    }
  }
}

/**
 * invoice.paid: a subscription's first invoice completes its plan payment (if the checkout's event
 * has not yet); a renewal is a new completed payment with its receipt, and moves the plan's period on.
 */
async function applyInvoice(ctx: PaymentContext, invoice: ProviderInvoice, eventId: string, type: string) {
  if (!invoice.subscriptionId) return applyOnce(ctx, eventId, type, async () => null);
  const first =
    (invoice.paymentId !== null ? await findPaymentById(ctx.prisma, invoice.paymentId) : null) ??
    (await findFirstPaymentOfSubscription(ctx.prisma, invoice.subscriptionId));
  if (!first || first.kind !== "plan") return applyOnce(ctx, eventId, type, async () => null);
  const known = await findPaymentByInvoice(ctx.prisma, invoice.id);
  return applyOnce(ctx, eventId, type, async (tx) => {
    const urls = { hostedInvoiceUrl: invoice.hostedUrl, invoicePdfUrl: invoice.pdfUrl };
    if (first.status === "pending" || first.providerInvoiceId === invoice.id || invoice.billingReason === "subscription_create") {
      const applied = await completeAndCredit(tx, first, {
        providerSubscriptionId: invoice.subscriptionId,
        providerInvoiceId: invoice.id,
        invoice,
      });
      if (applied === null) {
        await notePaymentFacts(tx, first.id, { providerSubscriptionId: invoice.subscriptionId, providerInvoiceId: invoice.id });
        await setReceiptInvoiceIn(tx, first.id, urls);
      }
      return null;
    }
    if (known) return null;
    const renewal = await createPayment(tx, {
      accountId: first.accountId,
      kind: "plan",
      provider: first.provider,
      amountCents: invoice.amountCents,
      reference: newReference(),
      planSlug: first.planSlug ?? undefined,
      billingPeriod: first.billingPeriod ?? undefined,
      providerSubscriptionId: invoice.subscriptionId ?? undefined,
    });
    await completeAndCredit(tx, renewal, { providerSubscriptionId: invoice.subscriptionId, providerInvoiceId: invoice.id, invoice });
    return null;
  });
}

// ---------------------------------------------------------------------------------------------
// The operator's manual credits (POST /operator/credits)

const sha256 = (text: string) => createHash("sha256").update(text).digest();

/** The operator key, compared by its SHA-256 in constant time; 401 for a missing or wrong key, or none configured. */
export function authenticateOperator(config: PlatformConfig, presented: string | undefined) {
  const expected = paymentSettings(config).operatorKeySha256;
  const ok =
    expected !== undefined &&
    presented !== undefined &&
    presented.length > 0 &&
    timingSafeEqual(sha256(presented), Buffer.from(expected.toLowerCase(), "hex"));
  if (!ok) {
    throw new PlatformError({ type: "authentication_error", message: "missing or invalid operator key (INLAY_OPERATOR_KEY_SHA256)" });
  }
}

export async function operatorCredit(ctx: PaymentContext, input: z.infer<typeof OperatorCreditRequest>) {
  const account = await findAccountContact(ctx.prisma, input.account_id);
  if (!account) throw new PlatformError({ type: "not_found", message: "account not found" });
  let payment: PaymentRow;
  if (input.payment_reference !== undefined) {
    const pending = await findPaymentByReference(ctx.prisma, input.payment_reference);
    if (!pending || pending.accountId !== account.id) throw new PlatformError({ type: "not_found", message: "no such payment of this account" });
    if (pending.status !== "pending") {
      throw new PlatformError({ type: "conflict_error", errorCode: "payment_not_pending", message: `payment ${pending.reference} is ${pending.status}` });
    }
    payment = pending;
  } else {
    payment = await createPayment(ctx.prisma, {
      accountId: account.id,
      kind: "manual_credit",
      provider: "manual",
      amountCents: input.amount_cents,
      reference: newReference(),
      actor: input.actor,
      reason: input.reason,
    });
  }
  // A pending top-up credited here reads as the operator's credit (who and why) in the ledger.
  const credited = { ...payment, kind: payment.kind === "topup" ? "manual_credit" : payment.kind };
  let receiptId: number | null = null;
  await applyOnce(ctx, undefined, "operator.credit", async (tx) => {
    receiptId = await completeAndCredit(tx, credited, { amountCents: input.amount_cents, actor: input.actor, reason: input.reason });
    if (receiptId === null) {
      throw new PlatformError({ type: "conflict_error", errorCode: "payment_not_pending", message: `payment ${payment.reference} is no longer pending` });
    }
    return account.id;
  });
  const receipt = await findReceiptById(ctx.prisma, receiptId!);
  const balance = await findAccountContact(ctx.prisma, account.id);
  return {
    payment_reference: payment.reference,
    receipt: toReceipt(receipt!),
    balance_micros: Number(balance?.balanceMicros ?? 0n),
  };
}

// ---------------------------------------------------------------------------------------------
// Receipts

export const receiptNumber = (id: number) => `R-${String(id).padStart(6, "0")}`;

export function toReceipt(row: ReceiptRow): z.infer<typeof Receipt> {
  return {
    id: row.id,
    number: receiptNumber(row.id),
    amount_cents: row.amountCents,
    amount_usd: usdDisplay(BigInt(row.amountCents) * MICROS_PER_CENT),
    currency: row.currency,
    description: row.description,
    kind: row.payment.kind as z.infer<typeof Receipt>["kind"],
    payment_reference: row.payment.reference,
    created_at: row.createdAt.toISOString(),
  };
}

export async function listReceipts(ctx: PaymentContext, auth: AuthContext, page: { limit: number; starting_after?: number }) {
  const rows = await listReceiptRows(ctx.prisma, auth.accountId, { limit: page.limit, startingAfter: page.starting_after });
  return toPage(rows, page.limit, toReceipt);
}

const receiptKey = (config: PlatformConfig) => deriveKey(config.secretKey, "payment-receipt-pages");

/** The hosted receipt page's token: the id and an HMAC of it with the receipt's salt (unguessable, nothing stored). */
function receiptToken(config: PlatformConfig, receipt: { id: number; pageSalt: string }) {
  const mac = createHmac("sha256", receiptKey(config)).update(`${receipt.id}.${receipt.pageSalt}`).digest("base64url");
  return `${receipt.id}.${mac}`;
}

export const receiptPageUrl = (config: PlatformConfig, receipt: { id: number; pageSalt: string }) =>
  `${config.publicBaseUrl}/billing/receipt-pages/${receiptToken(config, receipt)}`;

export async function receiptInvoice(ctx: PaymentContext, auth: AuthContext, receiptId: number) {
  const row = await findReceiptInAccount(ctx.prisma, auth.accountId, receiptId);
  if (!row) throw new PlatformError({ type: "not_found", message: "receipt not found" });
  const ours = receiptPageUrl(ctx.config, row);
  return {
    receipt_id: row.id,
    number: receiptNumber(row.id),
    invoice_pdf_url: row.invoicePdfUrl ?? `${ours}?print=1`,
    hosted_invoice_url: row.hostedInvoiceUrl ?? ours,
  };
}

/** The receipt a hosted page's token names, or 404 (a wrong or forged token). */
export async function receiptForPage(ctx: PaymentContext, token: string) {
  const id = Number(token.split(".")[0]);
  const row = Number.isInteger(id) && id > 0 && id <= MAX_INT_ID ? await findReceiptById(ctx.prisma, id) : null;
  const expected = row ? receiptToken(ctx.config, row) : "";
  if (!row || expected.length !== token.length || !timingSafeEqual(Buffer.from(expected), Buffer.from(token))) {
    throw new PlatformError({ type: "not_found", message: "receipt not found" });
  }
  const account = await findAccountContact(ctx.prisma, row.accountId);
  return { receipt: toReceipt(row), email: account?.email ?? "", actor: null };
}

const MANUAL_INSTRUCTIONS =
  "This installation takes no card payments. Its owner credits balances: send them this reference and the amount, and pay them as you agreed.";

/** The manual adapter's page of a pending top-up (GET /billing/pay/<reference>). */
export async function manualPaymentPage(ctx: PaymentContext, reference: string) {
  const payment = await findPaymentByReference(ctx.prisma, reference);
  if (!payment || payment.provider !== "manual") throw new PlatformError({ type: "not_found", message: "no such payment" });
  return {
    reference: payment.reference,
    amount: dollars(payment.amountCents),
    status: payment.status,
    instructions: paymentSettings(ctx.config).manualInstructions ?? MANUAL_INSTRUCTIONS,
  };
}

// ---------------------------------------------------------------------------------------------
// Auto-reload and the low-balance alert

export async function getAutoReload(ctx: PaymentContext, accountId: number) {
  const row = await findBillingSettings(ctx.prisma, accountId);
  return {
    enabled: row?.autoReloadEnabled ?? false,
    threshold_cents: row?.autoReloadThresholdCents ?? null,
    amount_cents: row?.autoReloadAmountCents ?? null,
    payment_method_saved: Boolean(row?.savedPaymentMethod),
    last_error: row?.autoReloadLastError ?? null,
  };
}

/** PATCH /billing/auto-reload. Enabling (re)arms it: a balance already below the threshold is a crossing. */
export async function setAutoReload(
  ctx: PaymentContext,
  auth: AuthContext,
  input: { enabled: boolean; threshold_cents?: number; amount_cents?: number },
) {
  await saveBillingSettings(ctx.prisma, auth.accountId, {
    autoReloadEnabled: input.enabled,
    ...(input.threshold_cents !== undefined ? { autoReloadThresholdCents: input.threshold_cents } : {}),
    ...(input.amount_cents !== undefined ? { autoReloadAmountCents: input.amount_cents } : {}),
    ...(input.enabled ? { autoReloadArmed: true, autoReloadLastError: null } : {}),
  });
  await checkBalanceCrossings(ctx, auth.accountId);
  return getAutoReload(ctx, auth.accountId);
}

/** PATCH /billing/alert-settings. A new threshold re-arms the alert. */
export async function setAlertSettings(ctx: PaymentContext, auth: AuthContext, thresholdCents: number) {
  await saveBillingSettings(ctx.prisma, auth.accountId, { lowBalanceThresholdCents: thresholdCents, lowBalanceArmed: true });
  await checkBalanceCrossings(ctx, auth.accountId);
  return { low_balance_threshold_cents: thresholdCents };
}

/**
 * After the balance moved: re-arms what is back at or above its threshold, and for each armed flag
 * the balance is now below, the one caller that clears it enqueues one job keyed by the crossing.
 */
export async function checkBalanceCrossings(
  ctx: { prisma: Db; jobs?: JobQueue },
  accountId: number,
  /** Whether the account watches its balance, when the caller read it already (a run's settlement). */
  watches?: boolean,
): Promise<void> {
  if (!ctx.jobs) return;
  // One primary-key read for the many accounts that set neither (this runs after every run's pass).
  if (!(watches ?? (await watchesBalance(ctx.prisma, accountId)))) return;
  await rearmCrossings(ctx.prisma, accountId);
  const reload = await takeAutoReloadCrossing(ctx.prisma, accountId);
  if (reload !== null) {
    await ctx.jobs.enqueue(AUTO_RELOAD_JOB, { accountId, crossing: reload }, { key: `${accountId}:${reload}`, retryLimit: 3, retryDelaySeconds: 30, retryBackoff: true });
  }
  const alert = await takeLowBalanceCrossing(ctx.prisma, accountId);
  if (alert !== null) {
    await ctx.jobs.enqueue(LOW_BALANCE_JOB, { accountId, crossing: alert }, { key: `${accountId}:${alert}`, retryLimit: 3, retryDelaySeconds: 30, retryBackoff: true });
  }
}

/** The auto-reload job: one off-session charge per crossing (its reference and the provider's idempotency key derive from it). */
export async function runAutoReload(ctx: PaymentContext, accountId: number, crossing: number): Promise<string> {
  const settings = await findBillingSettings(ctx.prisma, accountId);
  if (!settings?.autoReloadEnabled || !settings.autoReloadAmountCents) return "disabled";
  const adapter = paymentAdapterOf(ctx.config);
  const fail = async (reason: string) => {
    await saveBillingSettings(ctx.prisma, accountId, { autoReloadLastError: reason });
    return reason;
  };
  if (!adapter.takesCards) return fail("this installation takes no card payments (payments provider: manual)");
  if (!settings.providerCustomerId || !settings.savedPaymentMethod) return fail("no saved payment method: complete a top-up by card first");
  const reference = `pay_reload_${accountId}_${crossing}`;
  const payment =
    (await findPaymentByReference(ctx.prisma, reference)) ??
    (await createPayment(ctx.prisma, { accountId, kind: "auto_reload", provider: adapter.name, amountCents: settings.autoReloadAmountCents, reference }));
  if (payment.status !== "pending") return payment.status;
  const charged = await adapter.chargeOffSession({
    customerId: settings.providerCustomerId,
    paymentMethodId: settings.savedPaymentMethod,
    amountCents: payment.amountCents,
    paymentId: payment.id,
    reference,
    idempotencyKey: `inlay-${reference}`,
  });
  if (charged.status === "failed") {
    await failPendingPayment(ctx.prisma, payment.id, charged.reason);
    return fail(`the charge failed: ${charged.reason}`);
  }
  await applyOnce(ctx, undefined, "auto_reload", async (tx) => {
    await completeAndCredit(tx, payment, { providerPaymentId: charged.paymentIntentId });
    return accountId;
  });
  await saveBillingSettings(ctx.prisma, accountId, { autoReloadLastError: null });
  return "charged";
}
