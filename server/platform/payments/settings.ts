// Payment settings (lib/env.ts → server/platform/config.ts): which adapter takes payments, its
// credentials, the public base URL every link is built from, and the operator key's hash.
import { PlatformError } from "../errors";

export type PaymentProviderName = "manual" | "stripe";

export interface PaymentSettings {
  /** Default manual: an installation without a card provider. */
  provider?: PaymentProviderName;
  stripe?: {
    secretKey: string;
    /** Verifies POST /billing/webhooks/stripe; without it every delivery is refused. */
    webhookSecret?: string;
    /** Points the SDK at another API host (tests: a loopback fake), e.g. http://127.0.0.1:12111. */
    apiBaseUrl?: string;
  };
  /** SHA-256 (hex) of the key POST /operator/credits takes; unset, the endpoint refuses every call. */
  operatorKeySha256?: string;
  /** What the manual adapter's payment page says about paying this installation. */
  manualInstructions?: string;
}

/** The part of the platform configuration payments read (platform-config.ts `payments`). */
type WithPayments = { payments?: PaymentSettings };

export const paymentSettings = (config: WithPayments): PaymentSettings => config.payments ?? {};

export const providerOf = (config: WithPayments): PaymentProviderName => paymentSettings(config).provider ?? "manual";

/** The error every card operation answers on an installation without a card provider. */
export const noCardPayments = () =>
  new PlatformError({
    type: "conflict_error",
    errorCode: "card_payments_unavailable",
    message:
      "this installation takes no card payments (payments provider: manual): its owner credits balances; " +
      "POST /billing/topup gives the page that says how to pay",
  });
