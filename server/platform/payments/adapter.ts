// The payment adapter: what the billing services ask of a payment provider. `stripe` is the official
// SDK; `manual` takes no card payments (the installation's owner credits balances). Adapters do HTTP
// only: whatever they answer is applied by services/billing/payments.ts, exactly once. The configured one is
// configured-adapter.ts's.
import type { PaymentProviderName } from "./settings";

export interface CheckoutRequest {
  kind: "topup" | "plan";
  paymentId: number;
  reference: string;
  accountId: number;
  email: string;
  /** The provider's customer, when the account already has one. */
  customerId: string | null;
  amountCents: number;
  description: string;
  /** For a plan: billed every month or every year. */
  interval?: "month" | "year";
  successUrl: string;
  cancelUrl: string;
}

export interface CheckoutCreated {
  url: string;
  /** The provider's session id (null for manual). */
  sessionId: string | null;
  /** The provider's customer the session is for (created when the account had none). */
  customerId: string | null;
}

export interface ProviderInvoice {
  id: string;
  hostedUrl: string | null;
  pdfUrl: string | null;
  amountCents: number;
  subscriptionId: string | null;
  /** Our payment's id, from the metadata we gave the subscription. */
  paymentId: number | null;
  accountId: number | null;
  /** subscription_create (the checkout's first invoice) or a renewal (subscription_cycle, …). */
  billingReason: string | null;
  periodEnd: Date | null;
}

/** A checkout session as the provider reports it now. */
export interface CheckoutState {
  sessionId: string;
  paid: boolean;
  paymentId: number | null;
  customerId: string | null;
  paymentIntentId: string | null;
  /** The card saved for off-session charges (auto-reload). */
  paymentMethodId: string | null;
  subscriptionId: string | null;
  invoice: ProviderInvoice | null;
}

export type ProviderEvent = { id: string; type: string } & (
  | { kind: "checkout_completed"; sessionId: string }
  | { kind: "invoice_paid"; invoice: ProviderInvoice }
  | { kind: "subscription_ended"; subscriptionId: string; accountId: number | null }
  | { kind: "charge_succeeded"; paymentId: number | null; paymentIntentId: string }
  | { kind: "ignored" }
);

export interface OffSessionCharge {
  customerId: string;
  paymentMethodId: string;
  amountCents: number;
  paymentId: number;
  reference: string;
  /** The provider deduplicates retries of one charge with it. */
  idempotencyKey: string;
}

export type ChargeResult = { status: "succeeded"; paymentIntentId: string } | { status: "failed"; reason: string };

export interface PaymentAdapter {
  name: PaymentProviderName;
  /** False for manual: no checkout, portal, saved card or off-session charge. */
  takesCards: boolean;
  createCheckout(request: CheckoutRequest): Promise<CheckoutCreated>;
  retrieveCheckout(sessionId: string): Promise<CheckoutState>;
  createPortal(customerId: string, returnUrl: string): Promise<string>;
  createCustomer(accountId: number, email: string): Promise<string>;
  chargeOffSession(charge: OffSessionCharge): Promise<ChargeResult>;
  /** Verifies the signature and reads the event; throws PlatformError 400 when it does not verify. */
  parseWebhook(rawBody: string, signature: string | undefined): Promise<ProviderEvent>;
}
