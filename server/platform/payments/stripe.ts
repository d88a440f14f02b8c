// The stripe adapter, on the official SDK: Checkout sessions (top-ups save the card for auto-reload;
// plans are subscriptions), the customer portal, off-session charges of the saved card, and webhook
// events verified with constructEvent. STRIPE_API_BASE_URL points the SDK at another host (a fake).
import type Stripe from "stripe";
import { PlatformError } from "../errors";
import type { CheckoutState, PaymentAdapter, ProviderEvent, ProviderInvoice } from "./adapter";
import type { PaymentSettings } from "./settings";

type StripeSettings = NonNullable<PaymentSettings["stripe"]>;

const idOf = (value: string | { id: string } | null | undefined) => (value == null ? null : typeof value === "string" ? value : value.id);

const intOrNull = (value: unknown) => {
  const number = Number(value);
  return value !== undefined && value !== null && value !== "" && Number.isSafeInteger(number) ? number : null;
};

function apiHost(apiBaseUrl: string | undefined): Partial<Stripe.StripeConfig> {
  if (!apiBaseUrl) return {};
  const url = new URL(apiBaseUrl);
  const protocol = url.protocol === "http:" ? "http" : "https";
  return { host: url.hostname, port: url.port || (protocol === "http" ? 80 : 443), protocol };
}

function invoiceOf(invoice: Stripe.Invoice): ProviderInvoice {
  const details = invoice.parent?.subscription_details ?? null;
  const line = invoice.lines?.data?.[0];
  const periodEnd = line?.period?.end ?? invoice.period_end ?? null;
  return {
    id: invoice.id ?? "",
    hostedUrl: invoice.hosted_invoice_url ?? null,
    pdfUrl: invoice.invoice_pdf ?? null,
    amountCents: invoice.amount_paid ?? 0,
    subscriptionId: idOf(details?.subscription as string | { id: string } | null | undefined),
    paymentId: intOrNull(details?.metadata?.payment_id),
    accountId: intOrNull(details?.metadata?.account_id),
    billingReason: invoice.billing_reason ?? null,
    periodEnd: periodEnd ? new Date(periodEnd * 1000) : null,
  };
}

export function createStripeAdapter(settings: StripeSettings): PaymentAdapter {
  // The SDK is a large package: loaded at the first call to Stripe, not by every process at start.
  let loaded: Promise<{ sdk: typeof Stripe; stripe: Stripe }> | undefined;
  const client = () =>
    (loaded ??= import("stripe").then(({ default: sdk }) => ({
      sdk,
      stripe: new sdk(settings.secretKey, { ...apiHost(settings.apiBaseUrl), maxNetworkRetries: 2, timeout: 20_000 }),
    })));

  return {
    name: "stripe",
    takesCards: true,

    async createCustomer(accountId, email) {
      const { stripe } = await client();
      const customer = await stripe.customers.create({ email, metadata: { account_id: String(accountId) } });
      return customer.id;
    },

    async createCheckout(request) {
      const { stripe } = await client();
      const customerId = request.customerId ?? (await this.createCustomer(request.accountId, request.email));
      const metadata = { payment_id: String(request.paymentId), account_id: String(request.accountId), reference: request.reference };
      const common = {
        customer: customerId,
        client_reference_id: request.reference,
        success_url: request.successUrl,
        cancel_url: request.cancelUrl,
        metadata,
      };
      const session =
        request.kind === "plan"
          ? await stripe.checkout.sessions.create({
              ...common,
              mode: "subscription",
              line_items: [
                {
                  quantity: 1,
                  price_data: {
                    currency: "usd",
                    unit_amount: request.amountCents,
                    recurring: { interval: request.interval ?? "month" },
                    product_data: { name: request.description },
                  },
                },
              ],
              subscription_data: { metadata },
            })
          : await stripe.checkout.sessions.create({
              ...common,
              mode: "payment",
              line_items: [{ quantity: 1, price_data: { currency: "usd", unit_amount: request.amountCents, product_data: { name: request.description } } }],
              // Saves the card for auto-reload's off-session charges; the invoice gives the receipt its URLs.
              payment_intent_data: { setup_future_usage: "off_session", metadata },
              invoice_creation: { enabled: true },
            });
      if (!session.url) throw new Error(`stripe checkout session ${session.id} has no url`);
      return { url: session.url, sessionId: session.id, customerId };
    },

    async retrieveCheckout(sessionId): Promise<CheckoutState> {
      const { stripe } = await client();
      const session = await stripe.checkout.sessions.retrieve(sessionId, { expand: ["payment_intent", "invoice"] });
      const intent = session.payment_intent && typeof session.payment_intent === "object" ? session.payment_intent : null;
      const invoice = session.invoice && typeof session.invoice === "object" ? invoiceOf(session.invoice) : null;
      return {
        sessionId: session.id,
        paid: session.status === "complete" && session.payment_status === "paid",
        paymentId: intOrNull(session.metadata?.payment_id),
        customerId: idOf(session.customer),
        paymentIntentId: idOf(session.payment_intent),
        paymentMethodId: idOf(intent?.payment_method),
        subscriptionId: idOf(session.subscription),
        invoice,
      };
    },

    async createPortal(customerId, returnUrl) {
      const { stripe } = await client();
      const portal = await stripe.billingPortal.sessions.create({ customer: customerId, return_url: returnUrl });
      return portal.url;
    },

    async chargeOffSession(charge) {
      const { sdk, stripe } = await client();
      try {
        const intent = await stripe.paymentIntents.create(
          {
            amount: charge.amountCents,
            currency: "usd",
            customer: charge.customerId,
            payment_method: charge.paymentMethodId,
            off_session: true,
            confirm: true,
            description: `Auto-reload ${charge.reference}`,
            metadata: { payment_id: String(charge.paymentId), reference: charge.reference },
          },
          { idempotencyKey: charge.idempotencyKey },
        );
        return intent.status === "succeeded"
          ? { status: "succeeded", paymentIntentId: intent.id }
          : { status: "failed", reason: `payment ${intent.status}` };
      } catch (error) {
        // A decline is an answer, not an outage: the caller records it; anything else is retried.
        if (error instanceof sdk.errors.StripeCardError) return { status: "failed", reason: error.message };
        throw error;
      }
    },

    async parseWebhook(rawBody, signature): Promise<ProviderEvent> {
      if (!settings.webhookSecret || !signature) {
        throw new PlatformError({ type: "invalid_request_error", errorCode: "invalid_signature", message: "missing or unverifiable Stripe-Signature" });
      }
      const { stripe } = await client();
      let event: Stripe.Event;
      try {
        event = stripe.webhooks.constructEvent(rawBody, signature, settings.webhookSecret);
      } catch {
        throw new PlatformError({ type: "invalid_request_error", errorCode: "invalid_signature", message: "the Stripe-Signature does not verify" });
      }
      const base = { id: event.id, type: event.type };
      switch (event.type) {
        case "checkout.session.completed":
        case "checkout.session.async_payment_succeeded":
          return { ...base, kind: "checkout_completed", sessionId: event.data.object.id };
        case "invoice.paid":
          return { ...base, kind: "invoice_paid", invoice: invoiceOf(event.data.object) };
        case "customer.subscription.deleted":
          return {
            ...base,
            kind: "subscription_ended",
            subscriptionId: event.data.object.id,
            accountId: intOrNull(event.data.object.metadata?.account_id),
          };
        case "payment_intent.succeeded":
          return { ...base, kind: "charge_succeeded", paymentId: intOrNull(event.data.object.metadata?.payment_id), paymentIntentId: event.data.object.id };
        default:
          return { ...base, kind: "ignored" };
      }
    },
  };
}
