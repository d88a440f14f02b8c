// Usage reports: GET /usage (the account this billing period), /usage/end-users (each end-user this
// period, against its caps) and /usage/timeseries (tokens and cost per UTC day). The billing period is
// the calendar month in UTC; GET /usage of an account on a plan reports the plan's monthly window.
import type { z } from "zod";
import type { EndUserUsage, Usage, UsageTimeseries, UsageTimeseriesQuery } from "@inlay/core/schemas/billing";
import { TIMESERIES_MAX_DAYS } from "@inlay/core/schemas/billing";
import type { Page } from "@inlay/core/schemas/common";
import type { Db } from "../../repositories/db";
import { PlatformError } from "../../errors";
import {
  accountRunCounts,
  completedRunsByEndUser,
  findBalance,
  findEndUserIdByExternalId,
  listEndUsersForUsage,
  usageByDay,
  usageByEndUser,
  type UsageRow,
  type UsageSums,
} from "../../repositories/billing";
import { findAccountPlan, findOverageChoice, planUseIn } from "../../repositories/plans";
import { getSettings } from "../account/settings";
import { findPlan, freePathAvailable, type Plan, planWindow, UNLIMITED_RUNS } from "./plans";
import { billingPeriod, usdDisplay, usdExact } from "./billing";

const invalid = (field: string, message: string) =>
  new PlatformError({ type: "validation_error", message: `${field}: ${message}`, details: { fields: [{ field, message }] } });

const ZERO: UsageSums = { inputTokens: 0n, outputTokens: 0n, cacheCreationTokens: 0n, cacheReadTokens: 0n, costMicros: 0n };

export const USAGE_NOTE_PREPAID =
  "The account is on no plan (prepaid): runs are paid from the token balance (GET /billing/balance). runs_used " +
  "counts runs completed this period (the calendar month in UTC); cost_used is what they were metered at. " +
  "free_path_available: POST /billing/activate-free puts the account on the free plan (GET /billing/plans?include_free=true). " +
  "overage_enabled and overage_cap_cents are the choice (PATCH /billing/overage) a plan will start with.";

const planNote = (plan: Plan) =>
  `The account is on the ${plan.slug} plan: runs_used counts the runs it covered since period_start (included ` +
  `runs, then overage runs), none paid from the token balance. Past runs_limit, runs are charged ` +
  `overage_rate_cents each into overage_used_cents (billed by the payment provider) while overage is enabled ` +
  `and under overage_cap_cents; then RUN_LIMIT_REACHED. cost_used is what the period's runs were metered at; ` +
  `cost_limit is the plan's fair-use figure.`;

const centsToUsd = (cents: number) => usdExact(BigInt(cents) * 10_000n);

export async function getUsage(prisma: Db, accountId: number, now = new Date()): Promise<z.infer<typeof Usage>> {
  const [row, balance] = await Promise.all([findAccountPlan(prisma, accountId), findBalance(prisma, accountId)]);
  if (!balance) throw new PlatformError({ type: "not_found", message: "account not found" });
  const plan = row ? findPlan(row.slug) : undefined;
  const period = row && plan ? planWindow(row.periodAnchor, now) : billingPeriod(now);
  const [rows, runs, planUse] = await Promise.all([
    usageByDay(prisma, { accountId, since: period.start, until: period.end }, false),
    accountRunCounts(prisma, accountId, period.start, period.end),
    row && plan ? planUseIn(prisma, accountId, period.start, period.end) : undefined,
  ]);
  const totals = sumRows(rows);
  const common = {
    cost_used: usdExact(totals.costMicros),
    period_end: period.end.toISOString(),
    concurrent_runs: runs.active,
    period_start: period.start.toISOString(),
    input_tokens: Number(totals.inputTokens),
    output_tokens: Number(totals.outputTokens),
    cost_used_micros: Number(totals.costMicros),
    balance_micros: Number(balance.balanceMicros),
    balance_usd: usdDisplay(balance.balanceMicros),
  };
  if (!row || !plan || !planUse) {
    // No plan to apply it to: the choice a plan will start with (PATCH /billing/overage).
    const overage = await findOverageChoice(prisma, accountId);
    return {
      ...common,
      plan: "prepaid",
      runs_used: runs.completed,
      runs_limit: null,
      cost_limit: null,
      free_path_available: freePathAvailable(row),
      overage_enabled: overage.enabled,
      overage_used_cents: 0,
      overage_cap_cents: overage.capCents,
      overage_rate_cents: 0,
      trial_ends_at: null,
      unlimited_runs: true,
      concurrent_runs_limit: null,
      note: USAGE_NOTE_PREPAID,
    };
  }
  const unlimited = plan.included_runs === UNLIMITED_RUNS;
  return {
    ...common,
    plan: plan.slug,
    runs_used: planUse.includedRuns + planUse.overageRuns,
    runs_limit: unlimited ? null : plan.included_runs,
    cost_limit: centsToUsd(plan.fair_use_cost_limit_cents),
    free_path_available: false,
    overage_enabled: plan.overage_available && row.overageEnabled,
    overage_used_cents: planUse.overageCents,
    overage_cap_cents: row.overageCapCents,
    overage_rate_cents: plan.overage_available ? plan.overage_rate_cents : 0,
    trial_ends_at: row.trialEndsAt?.toISOString() ?? null,
    unlimited_runs: unlimited,
    concurrent_runs_limit: plan.max_concurrent_runs,
    note: planNote(plan),
  };
}

function sumRows(rows: UsageRow[]): UsageSums {
  const total = { ...ZERO };
  for (const row of rows) addInto(total, row);
  return total;
}

function addInto(target: UsageSums, row: UsageSums) {
  target.inputTokens += BigInt(row.inputTokens);
  target.outputTokens += BigInt(row.outputTokens);
  target.cacheCreationTokens += BigInt(row.cacheCreationTokens);
  target.cacheReadTokens += BigInt(row.cacheReadTokens);
  target.costMicros += BigInt(row.costMicros);
}

export async function listEndUserUsage(
  prisma: Db,
  accountId: number,
  query: { limit: number; starting_after?: number; user_id?: string },
  now = new Date(),
): Promise<Page<z.infer<typeof EndUserUsage>>> {
  const period = billingPeriod(now);
  const [profiles, settings] = await Promise.all([
    listEndUsersForUsage(prisma, accountId, {
      limit: query.limit,
      startingAfter: query.starting_after,
      externalId: query.user_id,
    }),
    getSettings(prisma, accountId),
  ]);
  const page = profiles.slice(0, query.limit);
  const ids = page.map((profile) => profile.id);
  const [sums, runs] = await Promise.all([
    usageByEndUser(prisma, accountId, ids, period.start, period.end),
    completedRunsByEndUser(prisma, accountId, ids, period.start, period.end),
  ]);
  return {
    data: page.map((profile) => {
      const used = sums.get(profile.id) ?? ZERO;
      return {
        id: profile.id,
        user_id: profile.externalId,
        period_start: period.start.toISOString(),
        period_end: period.end.toISOString(),
        runs_used: runs.get(profile.id) ?? 0,
        runs_limit: settings.per_end_user_run_limit,
        cost_used: usdExact(used.costMicros),
        cost_used_micros: Number(used.costMicros),
        cost_limit_cents: settings.per_end_user_cost_limit_cents,
        input_tokens: Number(used.inputTokens),
        output_tokens: Number(used.outputTokens),
      };
    }),
    has_more: profiles.length > query.limit,
  };
}

const DAY_MS = 24 * 60 * 60 * 1000;
const dayString = (date: Date) => date.toISOString().slice(0, 10);
const parseDay = (day: string) => new Date(`${day}T00:00:00Z`);

function sumsOut(sums: UsageSums) {
  return {
    input_tokens: Number(sums.inputTokens),
    output_tokens: Number(sums.outputTokens),
    cache_creation_tokens: Number(sums.cacheCreationTokens),
    cache_read_tokens: Number(sums.cacheReadTokens),
    total_tokens: Number(sums.inputTokens + sums.outputTokens),
    cost_usd: usdExact(sums.costMicros),
  };
}

function modelsOut(byModel: Map<string, UsageSums>) {
  return [...byModel.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([model, sums]) => ({ model, ...sumsOut(sums) }));
}

export interface UtcDayRange {
  /** First and last UTC day (YYYY-MM-DD), inclusive. */
  start: string;
  end: string;
  days: number;
  /** The first instant of `start`, and the first instant after `end`. */
  since: Date;
  until: Date;
}

/**
 * The UTC days a report covers: end_date defaults to today, start_date to 29 days before end_date;
 * 422 naming start_date when it is after end_date or the range exceeds TIMESERIES_MAX_DAYS.
 */
export function utcDayRange(query: { start_date?: string; end_date?: string }, now = new Date()): UtcDayRange {
  const end = query.end_date ?? dayString(now);
  const start = query.start_date ?? dayString(new Date(parseDay(end).getTime() - 29 * DAY_MS));
  const days = Math.round((parseDay(end).getTime() - parseDay(start).getTime()) / DAY_MS) + 1;
  if (days < 1) throw invalid("start_date", "must not be after end_date");
  if (days > TIMESERIES_MAX_DAYS) throw invalid("start_date", `the range must not exceed ${TIMESERIES_MAX_DAYS} days`);
  return { start, end, days, since: parseDay(start), until: new Date(parseDay(end).getTime() + DAY_MS) };
}

export async function usageTimeseries(
  prisma: Db,
  accountId: number,
  query: z.infer<typeof UsageTimeseriesQuery>,
  now = new Date(),
): Promise<z.infer<typeof UsageTimeseries>> {
  const { start, end, days, since, until } = utcDayRange(query, now);

  // An end-user who never used the platform has no profile and no usage: empty buckets, and no profile created.
  let endUserId: number | undefined;
  if (query.user_id !== undefined) {
    const found = await findEndUserIdByExternalId(prisma, accountId, query.user_id);
    endUserId = found ?? -1;
  }
  const groupByModel = query.group_by === "model";
  const rows = await usageByDay(
    prisma,
    {
      accountId,
      endUserId,
      agentId: query.teammate_id,
      surface: query.surface,
      settledMeter: query.settled_meter,
      since,
      until,
    },
    groupByModel,
  );

  const perDay = new Map<string, { sums: UsageSums; models: Map<string, UsageSums> }>();
  const totals = { sums: { ...ZERO }, models: new Map<string, UsageSums>() };
  for (const row of rows) {
    const bucket = perDay.get(row.day) ?? { sums: { ...ZERO }, models: new Map<string, UsageSums>() };
    perDay.set(row.day, bucket);
    addInto(bucket.sums, row);
    addInto(totals.sums, row);
    if (groupByModel && row.model !== null) {
      for (const target of [bucket.models, totals.models]) {
        const slice = target.get(row.model) ?? { ...ZERO };
        addInto(slice, row);
        target.set(row.model, slice);
      }
    }
  }
  const buckets = Array.from({ length: days }, (_, index) => {
    const date = dayString(new Date(parseDay(start).getTime() + index * DAY_MS));
    const bucket = perDay.get(date);
    return {
      date,
      ...sumsOut(bucket?.sums ?? ZERO),
      ...(groupByModel ? { models: modelsOut(bucket?.models ?? new Map()) } : {}),
    };
  });
  return {
    start_date: start,
    end_date: end,
    buckets,
    totals: { ...sumsOut(totals.sums), ...(groupByModel ? { models: modelsOut(totals.models) } : {}) },
  };
}
