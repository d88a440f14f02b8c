// The payment adapter an installation's configuration names (payments/settings.ts), built once per
// configuration.
import { createManualAdapter } from "./manual";
import { paymentSettings, providerOf } from "./settings";
import { createStripeAdapter } from "./stripe";
import type { PaymentAdapter } from "./adapter";

type WithPayments = Parameters<typeof paymentSettings>[0];

const adapters = new WeakMap<WithPayments, PaymentAdapter>();

/** The configured adapter, built once per configuration. */
export function paymentAdapterOf(config: WithPayments): PaymentAdapter {
  let adapter = adapters.get(config);
  if (!adapter) {
    const settings = paymentSettings(config);
    adapter = providerOf(config) === "stripe" && settings.stripe ? createStripeAdapter(settings.stripe) : createManualAdapter();
    adapters.set(config, adapter);
  }
  return adapter;
}
