// Run funding: which meter pays a run, decided once, at its admission (services/runs/run-admission.ts), and
// recorded on the run (platform_run_fundings) and so on each of its usage rows (settled_meter):
//   plan      covered by the account's plan: an included run, or overage (overage_rate_cents accrued to
//             overage_used_cents for the payment provider to bill, up to the account's monthly cap).
//             The balance is neither held nor debited.
//   wallet    the prepaid token balance: a hold at admission, debited as the run goes (no row: wallet).
//   released  a wallet run whose cost the balance could not cover: its hold was released and the rest
//             written off (the settlement relabels it; replies to it are paid from the balance again).
//   own_sub   a run on the account's own model connection: the provider bills the account directly,
//             the balance pays nothing. ownModelConnection() below is the one place that decides it.
// A reply keeps its run's meter (a turn is not a new run). On a plan, every admission (starts and
// replies) locks the plan row first, then counts: max_concurrent_runs (429 CONCURRENT_RUN_LIMIT_REACHED)
// and, for a start, included runs then overage (402 RUN_LIMIT_REACHED). Before that lock, the same
// counts are read without one (refusePlanOnRead): a refusal they already prove is answered there, so
// it does not wait behind the admissions it refuses; everything else is decided under the lock.
import type { Db } from "../../repositories/db";
import type { PlatformConfig } from "../../platform-config";
import { PlatformError } from "../../errors";
import {
  type AccountPlanRow,
  countActiveRuns,
  lockAccountPlan,
  type PlanWindowUse,
  planUseIn,
  readPlanAdmission,
  recordRunFunding,
  runMeter,
} from "../../repositories/plans";
import { hasOwnModelConnection } from "../models/model-connections";
import { findPlan, type Plan, planWindow, UNLIMITED_RUNS } from "../billing/plans";

export type Meter = "wallet" | "plan" | "released" | "own_sub";

export interface Funding {
  meter: Meter;
  /** The plan a plan-metered start counts against. */
  planSlug: string | null;
  /** What the run adds to the plan's overage (0 for an included run). */
  overageCents: number;
}

/** True for meters the balance pays: those take a hold at admission and are debited when settled. */
export const paysFromBalance = (meter: Meter | string) => meter === "wallet" || meter === "released";

export interface FundingRequest {
  accountId: number;
  kind: "start" | "reply";
  /** The run a reply resumes. */
  runId?: number;
  /** A start's model (catalogue id): a model the account's own connection serves makes it own_sub. */
  model?: string;
  /** The account has a plan row (read with the admission); no lock is taken without one. */
  hasPlan: boolean;
}

/**
 * A run on the account's own model connection is billed by its provider to the account (own_sub):
 * a start whose model a connection of the account serves (services/models/model-connections.ts; the runtime
 * then calls the provider with it, or fails the run, never charges the balance instead).
 */
export async function ownModelConnection(tx: Db, config: PlatformConfig, request: FundingRequest): Promise<boolean> {
  if (request.kind !== "start" || request.model === undefined) return false;
  return hasOwnModelConnection(tx, config, request.accountId, request.model);
}

/** Decides who pays the turn, inside the admission's transaction, or throws the plan's 402/429. */
export async function decideFunding(tx: Db, config: PlatformConfig, request: FundingRequest, now: Date): Promise<Funding> {
  const wallet: Funding = { meter: "wallet", planSlug: null, overageCents: 0 };
  if (request.kind === "reply" && request.runId !== undefined) {
    const meter = (await runMeter(tx, request.runId)) as Meter;
    if (request.hasPlan) await planGate(tx, request.accountId);
    return { ...wallet, meter };
  }
  if (await ownModelConnection(tx, config, request)) {
    if (request.hasPlan) await planGate(tx, request.accountId);
    return { ...wallet, meter: "own_sub" };
  }
  if (!request.hasPlan) return wallet;
  const gate = await planGate(tx, request.accountId);
  if (!gate) return wallet;
  const { plan, row } = gate;
  const window = planWindow(row.periodAnchor, now);
  const funding = planStart(plan, row, await planUseIn(tx, request.accountId, window.start, window.end), window);
  if (funding instanceof PlatformError) throw funding;
  return funding;
}

/**
 * Refuses the turn when the plan's figures, read without a lock, already prove the refusal; returns
 * having taken no lock and written nothing otherwise, and decideFunding then decides under the lock.
 * The read is one statement, so its figures are exact as of one moment, and the locked path deciding
 * at that moment would refuse alike (admissions in flight, which it does not see, only add runs).
 * Included runs and overage used in a window only grow (funding rows are only ever added), so such a
 * 402 stays true until the plan or its overage settings change, which a retry sees. Runs in progress
 * can shrink as runs end: the 429 was true when read, and a run that ends after it frees a place for
 * a retry (Retry-After), as a run ending just after the locked count would. `anchor` is the plan's
 * period_anchor as the admission read it; a plan changed since has another, and is left to the lock.
 */
export async function refusePlanOnRead(
  tx: Db,
  config: PlatformConfig,
  request: Omit<FundingRequest, "hasPlan">,
  anchor: Date,
  now: Date,
): Promise<void> {
  const window = planWindow(anchor, now);
  const read = await readPlanAdmission(tx, request.accountId, window.start, window.end);
  if (!read || read.row.periodAnchor.getTime() !== anchor.getTime()) return;
  const plan = findPlan(read.row.slug);
  if (!plan) return;
  // The spec's order, as planGate and decideFunding check: runs at once, then the window's runs.
  if (read.activeRuns >= plan.max_concurrent_runs) throw concurrentRunLimitReached(plan, read.activeRuns);
  if (request.kind === "reply" && request.runId !== undefined) return;
  const refusal = planStart(plan, read.row, read.use, window);
  // Asked only of a refusal, as it costs a read: the plan does not count runs on the account's own connection.
  if (refusal instanceof PlatformError && !(await ownModelConnection(tx, config, { ...request, hasPlan: true }))) throw refusal;
}

/** A start the plan covers, by what the plan covered in the window: included, overage, or the 402. */
function planStart(plan: Plan, row: AccountPlanRow, use: PlanWindowUse, window: { start: Date; end: Date }): Funding | PlatformError {
  if (plan.included_runs === UNLIMITED_RUNS || use.includedRuns < plan.included_runs) {
    return { meter: "plan", planSlug: plan.slug, overageCents: 0 };
  }
  const overageOn = plan.overage_available && row.overageEnabled;
  if (overageOn && use.overageCents + plan.overage_rate_cents <= row.overageCapCents) {
    return { meter: "plan", planSlug: plan.slug, overageCents: plan.overage_rate_cents };
  }
  return runLimitReached(plan, use.includedRuns + use.overageRuns, window, overageOn ? { used: use.overageCents, cap: row.overageCapCents } : null);
}

/** Records a start's funding (none for wallet: no row is wallet). */
export async function recordFunding(tx: Db, accountId: number, runId: number, funding: Funding, now: Date) {
  if (funding.meter === "wallet") return;
  await recordRunFunding(tx, { runId, accountId, meter: funding.meter, planSlug: funding.planSlug, overageCents: funding.overageCents, at: now });
}

/** Locks the plan row and enforces max_concurrent_runs; null when the account is prepaid after all. */
async function planGate(tx: Db, accountId: number) {
  const row = await lockAccountPlan(tx, accountId);
  // A slug the operator has since taken out of the catalogue covers nothing: the account pays as prepaid.
  const plan = row ? findPlan(row.slug) : undefined;
  if (!row || !plan) return null;
  const running = await countActiveRuns(tx, accountId);
  if (running >= plan.max_concurrent_runs) throw concurrentRunLimitReached(plan, running);
  return { row, plan };
}

function concurrentRunLimitReached(plan: Plan, running: number) {
  return new PlatformError({
    type: "rate_limit_error",
    errorCode: "CONCURRENT_RUN_LIMIT_REACHED",
    message: `CONCURRENT_RUN_LIMIT_REACHED: the ${plan.slug} plan runs ${plan.max_concurrent_runs} runs at once and ${running} are in progress; retry when one has finished`,
    details: { plan: plan.slug, concurrent_runs: running, concurrent_runs_limit: plan.max_concurrent_runs, retry_after: CONCURRENCY_RETRY_AFTER_S },
    headers: { "Retry-After": String(CONCURRENCY_RETRY_AFTER_S) },
  });
}

/** A guess, not a promise: runs usually finish within seconds. */
const CONCURRENCY_RETRY_AFTER_S = 5;

function runLimitReached(plan: Plan, used: number, window: { start: Date; end: Date }, overage: { used: number; cap: number } | null) {
  const why = overage
    ? `its ${plan.included_runs} included runs and its overage up to the monthly cap of ${overage.cap} cents (${overage.used} used; ${plan.overage_rate_cents} cents a run)`
    : plan.overage_available
      ? `its ${plan.included_runs} included runs (overage is off: PATCH /billing/overage)`
      : `its ${plan.included_runs} included runs (the ${plan.slug} plan has no overage)`;
  return new PlatformError({
    type: "billing_error",
    errorCode: "RUN_LIMIT_REACHED",
    message: `RUN_LIMIT_REACHED: the account has used ${why} until ${window.end.toISOString()}`,
    details: {
      plan: plan.slug,
      runs_used: used,
      runs_limit: plan.included_runs,
      overage_used_cents: overage?.used ?? 0,
      overage_cap_cents: overage?.cap ?? 0,
      period_end: window.end.toISOString(),
    },
  });
}
