// Money: client.usage (this billing period's usage, per end-user, per day) and client.billing (the
// prepaid balance). /usage/end-users and /usage/timeseries take user_id in the query, so a forUser
// client sees its end-user's figures only; GET /usage and /billing/balance are the account's.
import { collect, type PagePromise } from "../pagination";
import type { RequestOptions } from "../transport";
import type {
  EndUserUsage,
  EndUserUsageListParams,
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

  /** GET /usage: the account's usage this billing period (the calendar month in UTC) and its balance. */
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
}
