// Money: client.usage (this billing period's usage, per end-user, per day) and client.billing (the
// prepaid balance, the plan catalogue, the free plan and overage). /usage/end-users and /usage/timeseries take user_id in the query, so a forUser
// client sees its end-user's figures only; GET /usage and /billing/balance are the account's.
import { collect, type PagePromise } from "../pagination";
import { Transport, type ClientOptions, type RequestOptions } from "../transport";
import type {
  EndUserUsage,
  EndUserUsageListParams,
  OverageParams,
  PlanCatalogEntry,
  PlanListParams,
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
