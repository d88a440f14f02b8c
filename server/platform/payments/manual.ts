// The manual adapter: an installation without a card provider. A top-up is a pending payment whose
// page (ours) says how this installation takes payment; the owner credits it (POST /operator/credits).
import type { PaymentAdapter } from "./adapter";
import { noCardPayments } from "./settings";

export function createManualAdapter(): PaymentAdapter {
  const refuse = async (): Promise<never> => {
    throw noCardPayments();
  };
  return {
    name: "manual",
    takesCards: false,
    // The caller (services/billing/payments.ts) builds the page's URL: the manual "checkout" is that page.
    createCheckout: async (request) => ({ url: request.successUrl, sessionId: null, customerId: null }),
    retrieveCheckout: refuse,
    createPortal: refuse,
    createCustomer: refuse,
    chargeOffSession: async () => ({ status: "failed", reason: "this installation takes no card payments" }),
    parseWebhook: async () => {
      throw noCardPayments();
    },
  };
}
