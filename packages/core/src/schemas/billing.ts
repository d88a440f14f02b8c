// Money and usage: GET /billing/balance, GET /usage, /usage/end-users and /usage/timeseries.
import { z } from "zod";
import { IntId, PageQuery, QueryBoolean, Timestamp, UserId, listEnvelope } from "./common";

const UsdString = z.string().meta({ description: "US dollars as a decimal string" });

export const BalanceTransaction = z
  .object({
    id: z.number().int(),
    type: z.enum(["topup", "debit", "refund", "adjustment"]),
    amount_micros: z.number().int().meta({ description: "Negative for a debit" }),
    balance_after_micros: z.number().int(),
    run_id: z.number().int().nullable(),
    description: z.string(),
    created_at: Timestamp,
  })
  .meta({ id: "BalanceTransaction" });

export const TokenBalance = z
  .object({
    balance_micros: z.number().int().meta({ description: "1 micro-USD = 1e-6 USD" }),
    balance_usd: UsdString.meta({ description: "The balance rounded to cents, for display" }),
    currency: z.string(),
    held_micros: z.number().int().meta({ description: "Reserved by runs in progress (Inlay)" }),
    available_micros: z.number().int().meta({ description: "balance_micros - held_micros: what new runs can reserve (Inlay)" }),
    transactions: z.array(BalanceTransaction).meta({ description: "The 50 newest, newest first" }),
  })
  .meta({ id: "TokenBalance" });

export const Usage = z
  .object({
    plan: z.string(),
    runs_used: z.number().int(),
    runs_limit: z.number().int().nullable(),
    cost_used: UsdString,
    cost_limit: UsdString.nullable(),
    period_end: Timestamp,
    free_path_available: z.boolean(),
    overage_enabled: z.boolean(),
    overage_used_cents: z.number().int(),
    overage_cap_cents: z.number().int(),
    overage_rate_cents: z.number().int(),
    trial_ends_at: Timestamp.nullable(),
    unlimited_runs: z.boolean(),
    concurrent_runs: z.number().int(),
    concurrent_runs_limit: z.number().int().nullable(),
    // Inlay's additions
    period_start: Timestamp,
    input_tokens: z.number().int(),
    output_tokens: z.number().int(),
    cost_used_micros: z.number().int(),
    balance_micros: z.number().int(),
    balance_usd: UsdString,
    note: z.string(),
  })
  .meta({ id: "Usage" });

export const EndUserUsage = z
  .object({
    id: z.number().int().meta({ description: "The end-user profile's id (the paging cursor)" }),
    user_id: z.string(),
    period_start: Timestamp,
    period_end: Timestamp,
    runs_used: z.number().int().meta({ description: "Runs completed in the period" }),
    runs_limit: z.number().int().nullable().meta({ description: "per_end_user_run_limit" }),
    cost_used: UsdString,
    cost_used_micros: z.number().int(),
    cost_limit_cents: z.number().int().nullable().meta({ description: "per_end_user_cost_limit_cents" }),
    input_tokens: z.number().int(),
    output_tokens: z.number().int(),
  })
  .meta({ id: "EndUserUsage" });

export const EndUserUsagePage = listEnvelope(EndUserUsage);

export const EndUserUsageQuery = PageQuery.extend({ user_id: UserId.optional() });

/** YYYY-MM-DD that is a real calendar day. */
export const UtcDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, "must be a date YYYY-MM-DD")
  .refine((value) => {
    const date = new Date(`${value}T00:00:00Z`);
    return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value);
  }, "must be a real calendar date");

export const TIMESERIES_MAX_DAYS = 366;

export const UsageTimeseriesQuery = z.object({
  start_date: UtcDate.optional().meta({ description: "First UTC day; default 29 days before end_date" }),
  end_date: UtcDate.optional().meta({ description: "Last UTC day, inclusive; default today" }),
  teammate_id: IntId.optional(),
  surface: z.enum(["api", "platform"], { error: "must be api or platform" }).optional(),
  settled_meter: z.enum(["wallet", "plan", "released", "own_sub"], { error: "must be wallet, plan, released or own_sub" }).optional(),
  group_by: z.enum(["model"], { error: "must be model" }).optional(),
  user_id: UserId.optional(),
});

const TokenSums = z.object({
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  cache_creation_tokens: z.number().int(),
  cache_read_tokens: z.number().int(),
  total_tokens: z.number().int(),
  cost_usd: UsdString,
});

const ModelSlice = TokenSums.extend({ model: z.string() });

export const UsageTimeseries = z
  .object({
    start_date: z.string(),
    end_date: z.string(),
    buckets: z.array(TokenSums.extend({ date: z.string(), models: z.array(ModelSlice).optional() })),
    totals: TokenSums.extend({ models: z.array(ModelSlice).optional() }),
  })
  .meta({ id: "UsageTimeseries" });

export const PlanSlug = z.enum(["free", "individual", "pro", "max_5x", "max_20x"]);

export const PlanCatalogEntry = z
  .object({
    slug: PlanSlug,
    display_name: z.string(),
    included_runs: z.number().int(),
    monthly_price_cents: z.number().int(),
    annual_price_cents: z.number().int(),
    inference_mode: z.enum(["own_subscription", "platform"]),
    overage_available: z.boolean(),
    overage_rate_cents: z.number().int(),
    fair_use_cost_limit_cents: z.number().int(),
    max_concurrent_runs: z.number().int(),
  })
  .meta({ id: "PlanCatalogEntry" });

// ---- plans, usage limits and overage (GET /billing/plans, POST /billing/activate-free, PATCH /billing/overage) ----

export const PlanListQuery = z.object({
  include_free: QueryBoolean.optional().meta({ description: "Also list the free plan, which is not purchasable" }),
});

export const PlanList = z.array(PlanCatalogEntry);

export const OVERAGE_CAP_MAX_CENTS = 1_000_000;

export const UpdateOverageRequest = z.object({
  enabled: z.boolean({ error: "is required: true or false" }),
  monthly_cap_cents: z
    .number({ error: `is required: an integer of cents from 0 to ${OVERAGE_CAP_MAX_CENTS}` })
    .int("must be an integer of cents")
    .min(0, "must be at least 0")
    .max(OVERAGE_CAP_MAX_CENTS, `must be at most ${OVERAGE_CAP_MAX_CENTS}`)
    .meta({ description: "The most overage may add up to in a monthly window, in US cents (0 to 1,000,000)" }),
});
