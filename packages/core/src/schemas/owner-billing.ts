// Contracts of the owner's billing procedures (billing.*), shared by the tRPC router and the forms on
// /admin/billing. Amounts are whole cents, as the platform takes them; the forms read dollars and
// convert with packages/core/src/money.ts parseDollars. Ranges are the platform's (endpoints-more.md, Billing), so
// the form refuses what the platform would, with the same bounds in the message.
import { z } from "zod";
import { formatCents } from "../money";
import { OVERAGE_CAP_MAX_CENTS, PlanCatalogEntry, TokenBalance, Usage } from "./billing";
import { AUTO_RELOAD_MAX_CENTS, AUTO_RELOAD_MIN_CENTS, LOW_BALANCE_MAX_CENTS, Receipt, TOPUP_MAX_CENTS, TOPUP_MIN_CENTS } from "./payments";

const cents = (min: number, max: number) =>
  z
    .number({ message: "Enter an amount in dollars, e.g. 25.00." })
    .int({ message: "Enter dollars and whole cents." })
    .min(min, { message: `Must be at least ${formatCents(min)}.` })
    .max(max, { message: `Must be at most ${formatCents(max)}.` });

export const topUpInput = z.object({ amountCents: cents(TOPUP_MIN_CENTS, TOPUP_MAX_CENTS) });
export type TopUpInput = z.infer<typeof topUpInput>;

/** Off: no threshold or amount needed. On: both (the amount 500 to 1,000,000 cents). */
export const autoReloadInput = z.discriminatedUnion("enabled", [
  z.object({ enabled: z.literal(false) }),
  z.object({
    enabled: z.literal(true),
    thresholdCents: cents(0, LOW_BALANCE_MAX_CENTS),
    amountCents: cents(AUTO_RELOAD_MIN_CENTS, AUTO_RELOAD_MAX_CENTS),
  }),
]);
export type AutoReloadInput = z.infer<typeof autoReloadInput>;

export const alertSettingsInput = z.object({ lowBalanceThresholdCents: cents(0, LOW_BALANCE_MAX_CENTS) });
export type AlertSettingsInput = z.infer<typeof alertSettingsInput>;

/** Opt-in overage past the plan's included runs, up to a monthly cap (0 to 1,000,000 cents). */
export const overageInput = z.object({ enabled: z.boolean(), monthlyCapCents: cents(0, OVERAGE_CAP_MAX_CENTS) });
export type OverageInput = z.infer<typeof overageInput>;

export const planCheckoutInput = z.object({
  planId: z.string().min(1).max(50),
  billingPeriod: z.enum(["monthly", "annual"]).default("monthly"),
});

export const receiptIdInput = z.object({ receiptId: z.number().int().positive() });

/** The manual payments adapter: the owner credits the balance by hand; who and why go in the ledger. */
export const creditBalanceInput = z.object({
  amountCents: cents(1, TOPUP_MAX_CENTS),
  reason: z.string().trim().min(1, { message: "Say why (it goes in the ledger)." }).max(500, { message: "Use at most 500 characters." }),
  /** A pending top-up this credit pays (its page, /admin/billing/pay/<reference>): it is completed, with a receipt. */
  paymentReference: z.string().trim().min(1).max(64).optional(),
});
export type CreditBalanceInput = z.infer<typeof creditBalanceInput>;

// --- Answers of the billing procedures (their tRPC .output); the platform's own objects where it answers

/** Whether the "credit the balance" form can work here, and whether its key is development's own. */
const CreditSettings = z.object({ creditConfigured: z.boolean(), creditDevelopmentKey: z.boolean() });

export const TenantSpendRow = z.object({
  id: z.string(),
  name: z.string(),
  slug: z.string(),
  runs: z.number().int(),
  /** This month's spend, micro-USD. */
  costMicros: z.number().int(),
  /** The tenant's monthly cost limit, whole cents as set; null: none. */
  limitCents: z.number().int().nullable(),
});
export const TenantSpend = CreditSettings.extend({ tenants: z.array(TenantSpendRow), tenantsCostMicros: z.number().int() });
export const BillingOverview = TenantSpend.extend({ mode: z.enum(["embedded", "remote"]), balance: TokenBalance });

export const TopUpStarted = z.object({ checkoutUrl: z.string() });
/** Where to send the owner: a plan's checkout or the billing portal. */
export const BillingRedirect = z.object({ url: z.string() });
export const PlanOverview = z.object({ usage: Usage, plans: z.array(PlanCatalogEntry) });
export const ReceiptList = z.object({ receipts: z.array(Receipt), hasMore: z.boolean() });
