// Payments: top-ups, plan checkout, the billing portal, receipts and their invoices, auto-reload and
// the low-balance alert (/billing/*), and the operator's manual credits (POST /operator/credits).
import { z } from "zod";
import { IntId, PageQuery, Timestamp, listEnvelope } from "./common";

/** The limits table of concepts.md. */
export const TOPUP_MIN_CENTS = 500;
export const TOPUP_MAX_CENTS = 100_000_000;
export const AUTO_RELOAD_MIN_CENTS = 500;
export const AUTO_RELOAD_MAX_CENTS = 1_000_000;
export const LOW_BALANCE_MAX_CENTS = 10_000_000;

const cents = (min: number, max: number) =>
  z
    .number({ error: "must be an integer number of cents" })
    .int("must be an integer number of cents")
    .min(min, `must be at least ${min} cents`)
    .max(max, `must be at most ${max.toLocaleString("en-US")} cents`);

export const TopupRequest = z.object({ amount_cents: cents(TOPUP_MIN_CENTS, TOPUP_MAX_CENTS) });

export const CheckoutLink = z
  .object({
    checkout_url: z.string().meta({ description: "Where to send the payer" }),
    reference: z.string().meta({ description: "The payment's reference, shown on its page and receipt (Inlay)" }),
  })
  .meta({ id: "CheckoutLink" });

export const PlanCheckoutRequest = z.object({
  plan_id: z.string({ error: "is required" }).min(1, "is required").max(64),
  billing_period: z.enum(["monthly", "annual"], { error: "must be monthly or annual" }).default("monthly"),
});

export const PortalLink = z.object({ url: z.string() }).meta({ id: "PortalLink" });

export const AutoReloadRequest = z
  .object({
    enabled: z.boolean({ error: "is required (true or false)" }),
    threshold_cents: cents(0, LOW_BALANCE_MAX_CENTS).optional(),
    amount_cents: cents(AUTO_RELOAD_MIN_CENTS, AUTO_RELOAD_MAX_CENTS).optional(),
  })
  .superRefine((value, ctx) => {
    if (!value.enabled) return;
    if (value.threshold_cents === undefined) ctx.addIssue({ code: "custom", path: ["threshold_cents"], message: "is required to enable auto-reload" });
    if (value.amount_cents === undefined) ctx.addIssue({ code: "custom", path: ["amount_cents"], message: "is required to enable auto-reload" });
  });

export const AutoReloadSettings = z
  .object({
    enabled: z.boolean(),
    threshold_cents: z.number().int().nullable(),
    amount_cents: z.number().int().nullable(),
    payment_method_saved: z.boolean().meta({ description: "A card saved at a top-up's checkout: what auto-reload charges" }),
    last_error: z.string().nullable().meta({ description: "Why the last auto-reload charge did not happen, if it did not" }),
  })
  .meta({ id: "AutoReloadSettings" });

export const AlertSettingsRequest = z.object({ low_balance_threshold_cents: cents(0, LOW_BALANCE_MAX_CENTS) });

export const AlertSettings = z.object({ low_balance_threshold_cents: z.number().int().nullable() }).meta({ id: "AlertSettings" });

export const Receipt = z
  .object({
    id: z.number().int(),
    number: z.string().meta({ description: "R-000001: receipts are numbered in order across the installation" }),
    amount_cents: z.number().int(),
    amount_usd: z.string(),
    currency: z.string(),
    description: z.string(),
    kind: z.enum(["topup", "plan", "auto_reload", "manual_credit"]),
    payment_reference: z.string(),
    created_at: Timestamp,
  })
  .meta({ id: "Receipt" });

export const ReceiptPage = listEnvelope(Receipt);
export const ReceiptListQuery = PageQuery;
export const ReceiptIdParam = z.object({ receipt_id: IntId });

export const ReceiptInvoice = z
  .object({
    receipt_id: z.number().int(),
    number: z.string(),
    invoice_pdf_url: z.string(),
    hosted_invoice_url: z.string(),
  })
  .meta({ id: "ReceiptInvoice" });

export const OperatorCreditRequest = z.object({
  account_id: z.number({ error: "must be an account id" }).int().positive(),
  amount_cents: cents(1, TOPUP_MAX_CENTS),
  reason: z.string({ error: "is required" }).trim().min(1, "is required").max(500),
  actor: z.string({ error: "is required" }).trim().min(1, "is required").max(200),
  payment_reference: z.string().trim().min(1).max(64).optional().meta({ description: "A pending top-up this credit pays" }),
});

export const OperatorCredit = z
  .object({
    payment_reference: z.string(),
    receipt: Receipt,
    balance_micros: z.number().int(),
  })
  .meta({ id: "OperatorCredit" });

export const WebhookReceived = z.object({ received: z.literal(true), duplicate: z.boolean() });
