// Payments (services/billing/payments.ts): payment rows and their exactly-once completion, processed provider
// events, receipts, and each account's billing settings with the armed flags of the balance crossings.
import { Prisma, type PrismaClient } from "@/server/generated/prisma/client";
import type { Tx } from "./db";
import { queryRows } from "./direct";

export interface NewPayment {
  accountId: number;
  kind: "topup" | "plan" | "auto_reload" | "manual_credit";
  provider: string;
  amountCents: number;
  reference: string;
  status?: "pending" | "completed";
  planSlug?: string;
  billingPeriod?: string;
  actor?: string;
  reason?: string;
  providerSubscriptionId?: string;
  providerInvoiceId?: string;
}

export const createPayment = (prisma: Tx, payment: NewPayment) => prisma.platformPayment.create({ data: payment });

export type PaymentRow = Awaited<ReturnType<typeof createPayment>>;

export const findPaymentById = (prisma: Tx, id: number) => prisma.platformPayment.findUnique({ where: { id } });

export const findPaymentByReference = (prisma: Tx, reference: string) => prisma.platformPayment.findUnique({ where: { reference } });

export const findPaymentBySession = (prisma: Tx, sessionId: string) =>
  prisma.platformPayment.findUnique({ where: { providerSessionId: sessionId } });

export const findPaymentByInvoice = (prisma: Tx, invoiceId: string) =>
  prisma.platformPayment.findUnique({ where: { providerInvoiceId: invoiceId } });

/** The plan payment that started a subscription (its first). */
export const findFirstPaymentOfSubscription = (prisma: Tx, subscriptionId: string) =>
  prisma.platformPayment.findFirst({ where: { providerSubscriptionId: subscriptionId }, orderBy: { id: "asc" } });

export const setPaymentCheckout = (prisma: Tx, id: number, checkout: { sessionId: string | null; checkoutUrl: string }) =>
  prisma.platformPayment.update({ where: { id }, data: { providerSessionId: checkout.sessionId, checkoutUrl: checkout.checkoutUrl } });

export interface PaymentFacts {
  amountCents?: number;
  providerPaymentId?: string | null;
  providerSubscriptionId?: string | null;
  providerInvoiceId?: string | null;
  actor?: string;
  reason?: string;
}

/**
 * pending → completed, once: the guard of every credit. True for the one caller whose UPDATE moved it;
 * a concurrent second caller waits on the row and then finds it no longer pending.
 */
export async function completePaymentIn(tx: Tx, id: number, facts: PaymentFacts): Promise<boolean> {
  const defined = Object.fromEntries(Object.entries(facts).filter(([, value]) => value !== undefined && value !== null));
  const moved = await tx.platformPayment.updateMany({
    where: { id, status: "pending" },
    data: { ...defined, status: "completed", completedAt: new Date() },
  });
  return moved.count === 1;
}

/** Provider facts learnt after completion (the invoice of a subscription's first payment, …). */
export const notePaymentFacts = (tx: Tx, id: number, facts: PaymentFacts) =>
  tx.platformPayment.update({
    where: { id },
    data: Object.fromEntries(Object.entries(facts).filter(([, value]) => value !== undefined && value !== null)),
  });

export const failPendingPayment = (prisma: Tx, id: number, reason: string) =>
  prisma.platformPayment.updateMany({ where: { id, status: "pending" }, data: { status: "failed", failureReason: reason.slice(0, 500) } });

// --- Provider events ------------------------------------------------------------------------------

export async function eventApplied(prisma: Tx, provider: string, eventId: string): Promise<boolean> {
  const row = await prisma.platformPaymentEvent.findUnique({ where: { provider_eventId: { provider, eventId } }, select: { id: true } });
  return row !== null;
}

/** Records the event as applied; false when it already was (the caller's transaction then applies nothing). */
export async function recordEventIn(tx: Tx, provider: string, eventId: string, type: string): Promise<boolean> {
  const rows = await tx.$queryRaw<{ id: bigint }[]>`
    INSERT INTO platform_payment_events (provider, event_id, type, created_at) VALUES (${provider}, ${eventId}, ${type}, now())
    ON CONFLICT (provider, event_id) DO NOTHING RETURNING id`;
  return rows.length === 1;
}

// --- Receipts -------------------------------------------------------------------------------------

export interface NewReceipt {
  accountId: number;
  paymentId: number;
  amountCents: number;
  description: string;
  invoicePdfUrl?: string | null;
  hostedInvoiceUrl?: string | null;
  pageSalt: string;
}

export const createReceiptIn = (tx: Tx, receipt: NewReceipt) => tx.platformReceipt.create({ data: receipt });

export const withPayment = { payment: { select: { kind: true, reference: true, provider: true } } } as const;

export const listReceiptRows = (prisma: Tx, accountId: number, page: { limit: number; startingAfter?: number }) =>
  prisma.platformReceipt.findMany({
    where: { accountId, ...(page.startingAfter !== undefined ? { id: { lt: page.startingAfter } } : {}) },
    orderBy: { id: "desc" },
    take: page.limit + 1,
    include: withPayment,
  });

export type ReceiptRow = Awaited<ReturnType<typeof listReceiptRows>>[number];

export const findReceiptInAccount = (prisma: Tx, accountId: number, id: number) =>
  prisma.platformReceipt.findFirst({ where: { id, accountId }, include: withPayment });

export const findReceiptById = (prisma: Tx, id: number) => prisma.platformReceipt.findUnique({ where: { id }, include: withPayment });

export const setReceiptInvoiceIn = (tx: Tx, paymentId: number, urls: { hostedInvoiceUrl: string | null; invoicePdfUrl: string | null }) =>
  tx.platformReceipt.updateMany({ where: { paymentId }, data: urls });

// --- Billing settings and crossings ---------------------------------------------------------------

export const findBillingSettings = (prisma: Tx, accountId: number) => prisma.platformBillingSettings.findUnique({ where: { accountId } });

/** Whether the account watches its balance (auto-reload or a low-balance alert): read after every run's pass (direct.ts). */
export async function watchesBalance(prisma: PrismaClient, accountId: number): Promise<boolean> {
  const rows = await queryRows<{ watches: boolean }>(
    prisma,
    Prisma.sql`SELECT (auto_reload_enabled OR low_balance_threshold_cents IS NOT NULL) AS watches
      FROM platform_billing_settings WHERE account_id = ${accountId}`,
  );
  return rows[0]?.watches ?? false;
}

export type BillingSettingsRow = NonNullable<Awaited<ReturnType<typeof findBillingSettings>>>;

type SettingsPatch = Partial<Omit<BillingSettingsRow, "accountId" | "updatedAt">>;

export const saveBillingSettings = (prisma: Tx, accountId: number, patch: SettingsPatch) =>
  prisma.platformBillingSettings.upsert({ where: { accountId }, create: { accountId, ...patch }, update: patch });

export const findAccountContact = (prisma: Tx, accountId: number) =>
  prisma.platformAccount.findUnique({ where: { id: accountId }, select: { id: true, email: true, balanceMicros: true } });

/** Re-arms each flag whose balance is back at or above its threshold. */
export async function rearmCrossings(prisma: Tx, accountId: number): Promise<void> {
  await prisma.$executeRaw`
    UPDATE platform_billing_settings s SET
      auto_reload_armed = s.auto_reload_armed OR (s.auto_reload_threshold_cents IS NOT NULL AND a.balance_micros >= s.auto_reload_threshold_cents::bigint * 10000),
      low_balance_armed = s.low_balance_armed OR (s.low_balance_threshold_cents IS NOT NULL AND a.balance_micros >= s.low_balance_threshold_cents::bigint * 10000)
    FROM platform_accounts a
    WHERE s.account_id = ${accountId} AND a.id = s.account_id AND (NOT s.auto_reload_armed OR NOT s.low_balance_armed)`;
}

/**
 * Disarms auto-reload when the balance is below its threshold, and counts the crossing: the one caller
 * whose UPDATE cleared the flag gets the crossing's number; every concurrent other gets null
 * (PostgreSQL re-checks the WHERE against the row the first one wrote).
 */
export async function takeAutoReloadCrossing(prisma: Tx, accountId: number): Promise<number | null> {
  const rows = await prisma.$queryRaw<{ crossing: number }[]>`
    UPDATE platform_billing_settings s SET auto_reload_armed = false, auto_reload_crossings = s.auto_reload_crossings + 1
    FROM platform_accounts a
    WHERE s.account_id = ${accountId} AND a.id = s.account_id AND s.auto_reload_enabled AND s.auto_reload_armed
      AND s.auto_reload_threshold_cents IS NOT NULL AND a.balance_micros < s.auto_reload_threshold_cents::bigint * 10000
    RETURNING s.auto_reload_crossings AS crossing`;
  return rows[0]?.crossing ?? null;
}

/** takeAutoReloadCrossing for the low-balance alert. */
export async function takeLowBalanceCrossing(prisma: Tx, accountId: number): Promise<number | null> {
  const rows = await prisma.$queryRaw<{ crossing: number }[]>`
    UPDATE platform_billing_settings s SET low_balance_armed = false, low_balance_crossings = s.low_balance_crossings + 1
    FROM platform_accounts a
    WHERE s.account_id = ${accountId} AND a.id = s.account_id AND s.low_balance_armed
      AND s.low_balance_threshold_cents IS NOT NULL AND a.balance_micros < s.low_balance_threshold_cents::bigint * 10000
    RETURNING s.low_balance_crossings AS crossing`;
  return rows[0]?.crossing ?? null;
}

/** An account's payments, newest first (the hosted billing page's history). */
export const listPaymentRows = (prisma: Tx, accountId: number, limit: number) =>
  prisma.platformPayment.findMany({ where: { accountId }, orderBy: { id: "desc" }, take: limit });

/** A hosted billing page's link; the account's expired ones go at the same time, so they do not pile up. */
export async function createPortalLink(prisma: PrismaClient, link: { tokenHash: string; accountId: number; expiresAt: Date }, now: Date) {
  await prisma.$transaction([
    prisma.platformBillingPortalLink.deleteMany({ where: { accountId: link.accountId, expiresAt: { lte: now } } }),
    prisma.platformBillingPortalLink.create({ data: link }),
  ]);
}

/** The account a link's token hash opens, while it has not expired. */
export const findLivePortalLink = (prisma: Tx, tokenHash: string, now: Date) =>
  prisma.platformBillingPortalLink.findFirst({ where: { tokenHash, expiresAt: { gt: now } }, select: { accountId: true } });
