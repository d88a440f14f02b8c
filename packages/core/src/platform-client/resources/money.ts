// Money: client.usage (this billing period's usage, per end-user, per day) and client.billing (the
// prepaid balance, the plan catalogue, the free plan and overage). /usage/end-users and /usage/timeseries take user_id in the query, so a forUser
// client sees its end-user's figures only; GET /usage and /billing/balance are the account's.
import { collect, type PagePromise } from "../pagination";
import { Transport, type ClientOptions, type RequestOptions } from "../transport";
import type {
  AlertSettings,
  AlertSettingsParams,
  AutoReloadParams,
  AutoReloadSettings,
  CheckoutLink,
  EndUserUsage,
  EndUserUsageListParams,
  OverageParams,
  PlanCatalogEntry,
  PlanListParams,
  OperatorCredit,
  OperatorCreditParams,
  PlanCheckoutParams,
  SignupInvite,
  SignupInviteParams,
  PortalLink,
  Receipt,
  ReceiptInvoice,
  ReceiptListParams,
  TopupParams,
  TokenBalance,
  Usage,
  UsageTimeseries,
  UsageTimeseriesParams,
} from "../types";
import { Resource } from "./resource";

export class EndUsersUsage extends Resource {
  /** GET /usage/end-users: each end-user's runs, tokens and cost this period, newest profile first. */
  list(params?: EndUserUsageListParams, options?: RequestOptions): PagePromise<EndUserUsage> {
    return this.paged({ path: "/usage/end-users", userId: "query" }, params, options);
  }
  listAll(params?: EndUserUsageListParams, options?: RequestOptions): Promise<EndUserUsage[]> {
    return collect(this.list(params, options));
  }
}

export class UsageResource extends Resource {
  readonly endUsers = new EndUsersUsage(this.transport);

  /** GET /usage: the account's usage this billing period (its plan's monthly window, or the UTC month), its plan's limits and its balance. */
  get(options?: RequestOptions): Promise<Usage> {
    return this.transport.json({ method: "GET", path: "/usage" }, options);
  }

  /** GET /usage/timeseries: tokens and cost per UTC day (default: the last 30 days), optionally per model. */
  timeseries(params: UsageTimeseriesParams = {}, options?: RequestOptions): Promise<UsageTimeseries> {
    return this.transport.json({ method: "GET", path: "/usage/timeseries", query: params, userId: "query" }, options);
  }
}

export class Billing extends Resource {
  /** GET /billing/balance: the balance in micro-USD, what runs in progress hold, the 50 newest entries. */
  balance(options?: RequestOptions): Promise<TokenBalance> {
    return this.transport.json({ method: "GET", path: "/billing/balance" }, options);
  }

  // ---- payments (docs/platform-api.md, "Payments") ----
  readonly receipts = new Receipts(this.transport);

  /** POST /billing/topup: where to pay amount_cents (500-100,000,000); the balance is credited when it completes. */
  topup(params: TopupParams, options?: RequestOptions): Promise<CheckoutLink> {
    return this.transport.json({ method: "POST", path: "/billing/topup", body: params }, options);
  }

  /** POST /billing/checkout: the provider's checkout for a plan (409 card_payments_unavailable on a manual installation). */
  checkout(params: PlanCheckoutParams, options?: RequestOptions): Promise<CheckoutLink> {
    return this.transport.json({ method: "POST", path: "/billing/checkout", body: params }, options);
  }

  /** POST /billing/portal: the provider's customer portal. */
  portal(options?: RequestOptions): Promise<PortalLink> {
    return this.transport.json({ method: "POST", path: "/billing/portal" }, options);
  }

  /** PATCH /billing/auto-reload: charge the saved card when the balance falls below the threshold, once per crossing. */
  setAutoReload(params: AutoReloadParams, options?: RequestOptions): Promise<AutoReloadSettings> {
    return this.transport.json({ method: "PATCH", path: "/billing/auto-reload", body: params }, options);
  }

  /** PATCH /billing/alert-settings: a low-balance alert (mail and billing.low_balance webhook event), once per crossing. */
  setAlertSettings(params: AlertSettingsParams, options?: RequestOptions): Promise<AlertSettings> {
    return this.transport.json({ method: "PATCH", path: "/billing/alert-settings", body: params }, options);
  }

  // ---- plans, usage limits and overage ----

  /** GET /billing/plans (no auth needed): the catalogue, cheapest first; the free plan with include_free. */
  plans(params: PlanListParams = {}, options?: RequestOptions): Promise<PlanCatalogEntry[]> {
    return this.transport.json({ method: "GET", path: "/billing/plans", query: params }, options);
  }

  /** POST /billing/activate-free: an account on no plan moves to the free plan (409 otherwise). */
  activateFree(options?: RequestOptions): Promise<Usage> {
    return this.transport.json({ method: "POST", path: "/billing/activate-free" }, options);
  }

  /** PATCH /billing/overage: opt-in overage past the plan's included runs, up to a monthly cap in cents. */
  setOverage(params: OverageParams, options?: RequestOptions): Promise<Usage> {
    return this.transport.json({ method: "PATCH", path: "/billing/overage", body: params }, options);
  }
}

/** GET /billing/plans without a key (the pricing page of a product that has none yet). */
export function listPlans(options: Omit<ClientOptions, "apiKey">, params: PlanListParams = {}, request?: RequestOptions): Promise<PlanCatalogEntry[]> {
  return new Transport({ ...options, apiKey: "" }).json({ method: "GET", path: "/billing/plans", query: params }, request);
}

// ---- payments: receipts and the operator's credits ----

export class Receipts extends Resource {
  /** GET /billing/receipts: a numbered receipt per completed payment, newest first. */
  list(params?: ReceiptListParams, options?: RequestOptions): PagePromise<Receipt> {
    return this.paged({ path: "/billing/receipts" }, params, options);
  }
  listAll(params?: ReceiptListParams, options?: RequestOptions): Promise<Receipt[]> {
    return collect(this.list(params, options));
  }
  /** GET /billing/receipts/{id}/invoice: the provider's invoice URLs, or this installation's receipt page. */
  invoice(receiptId: number, options?: RequestOptions): Promise<ReceiptInvoice> {
    return this.transport.json({ method: "GET", path: `/billing/receipts/${receiptId}/invoice` }, options);
  }
}

/**
 * The installation owner's operations (Inlay extension), authenticated with the operator key rather
 * than an API key: keep both on the server. The framework's console calls credit().
 */
export class Operator extends Resource {
  /** POST /operator/credits: credits an account's balance (a ledger entry with who and why, and a receipt). */
  credit(operatorKey: string, params: OperatorCreditParams, options?: RequestOptions): Promise<OperatorCredit> {
    return this.transport.json(
      { method: "POST", path: "/operator/credits", body: params },
      { ...options, headers: { ...options?.headers, "x-operator-key": operatorKey } },
    );
  }

  /** POST /operator/signup-invites: an invite code for one email address (sign-up by invite, INLAY_SIGNUP=invite). */
  signupInvite(operatorKey: string, params: SignupInviteParams, options?: RequestOptions): Promise<SignupInvite> {
    return this.transport.json(
      { method: "POST", path: "/operator/signup-invites", body: params },
      { ...options, headers: { ...options?.headers, "x-operator-key": operatorKey } },
    );
  }
}
