// Money: the prepaid token balance (micro-USD), its ledger, metering of model calls and the
// settlement of what runs cost. Holds are placed by run admission (services/runs/run-admission.ts); the
// whole design is in docs/platform-api.md, "Money".
import type { z } from "zod";
import type { BalanceTransaction, TokenBalance } from "@inlay/core/schemas/billing";
import { isTerminalStatus } from "@inlay/core/schemas/runs";
import { RUN_LIFECYCLE, type RunTransitionName } from "@inlay/core/schemas/run-lifecycle";
import type { Db } from "../../repositories/db";
import type { RunRow, RunUpdate } from "../../repositories/runs";
import type { NewWebhookEvent } from "../../repositories/webhook-events";
import type { NewRequest } from "../../repositories/permission-requests";
import { PlatformError } from "../../errors";
import {
  addLedgerEntry,
  endRunWithinHold,
  findBalance,
  type LedgerEntry,
  type LedgerRow,
  listLedger,
  type MeteredCall,
  recordModelCall,
  recordModelCallWithCheckpoint,
  settleRunCharges,
  settleRunChargesIn,
  type RunEnd,
  type RunEndResult,
  type Settlement,
} from "../../repositories/billing";

export type { MeteredCall } from "../../repositories/billing";
import type { BillingSettings } from "../../platform-config";
import { callCostMicros, type CallTokens, type ModelSettings, pricingOf } from "../../models/catalog";


export const BILLING_DEFAULTS: BillingSettings = { signupCreditMicros: 5_000_000, runHoldMicros: 50_000 };

export function billingSettings(config: { billing?: Partial<BillingSettings> }): BillingSettings {
  const given = Object.fromEntries(Object.entries(config.billing ?? {}).filter(([, value]) => value !== undefined));
  return { ...BILLING_DEFAULTS, ...given };
}

/** How many ledger entries GET /billing/balance shows. */
export const BALANCE_TRANSACTIONS_SHOWN = 50;

export const CURRENCY = "usd";

/** Micro-USD as an exact decimal string of dollars: 1234567n → "1.234567". */
export function usdExact(micros: bigint): string {
  const negative = micros < 0n;
  const abs = negative ? -micros : micros;
  return `${negative ? "-" : ""}${abs / 1_000_000n}.${(abs % 1_000_000n).toString().padStart(6, "0")}`;
}

/** Micro-USD rounded half up to cents, for display: 4_999_500n → "5.00". */
export function usdDisplay(micros: bigint): string {
  const negative = micros < 0n;
  const cents = ((negative ? -micros : micros) + 5_000n) / 10_000n;
  return `${negative && cents > 0n ? "-" : ""}${cents / 100n}.${(cents % 100n).toString().padStart(2, "0")}`;
}

/** The first instant of the calendar month (UTC) `now` is in, and of the next: the billing period. */
export function billingPeriod(now: Date): { start: Date; end: Date } {
  return {
    start: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)),
    end: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)),
  };
}

const toInt = (value: bigint) => Number(value);

/** A ledger entry on the account; 409 when it would take the balance below what runs in progress hold. */
export async function addBalanceEntry(prisma: Db, accountId: number, entry: LedgerEntry): Promise<bigint> {
  const balance = await addLedgerEntry(prisma, accountId, entry);
  if (balance === null) {
    throw new PlatformError({
      type: "conflict_error",
      message: "the balance cannot go below what runs in progress hold, nor below zero",
    });
  }
  return balance;
}

export async function getBalance(prisma: Db, accountId: number): Promise<z.infer<typeof TokenBalance>> {
  const [balance, entries] = await Promise.all([
    findBalance(prisma, accountId),
    listLedger(prisma, accountId, BALANCE_TRANSACTIONS_SHOWN),
  ]);
  if (!balance) throw new PlatformError({ type: "not_found", message: "account not found" });
  return {
    balance_micros: toInt(balance.balanceMicros),
    balance_usd: usdDisplay(balance.balanceMicros),
    currency: CURRENCY,
    held_micros: toInt(balance.heldMicros),
    available_micros: toInt(balance.balanceMicros - balance.heldMicros),
    transactions: entries.map(toBalanceTransaction),
  };
}

export const toBalanceTransaction = (entry: LedgerRow): z.infer<typeof BalanceTransaction> => ({
  id: entry.id,
  type: entry.type as "topup" | "debit" | "refund" | "adjustment",
  amount_micros: toInt(entry.amountMicros),
  balance_after_micros: toInt(entry.balanceAfterMicros),
  run_id: entry.runId,
  description: entry.description,
  created_at: entry.createdAt.toISOString(),
});

// ---------------------------------------------------------------------------------------------
// Metering and settlement (called by the run runtime)

export interface MeteredRun {
  id: number;
  accountId: number;
  endUserId: number | null;
  agentId: number;
  model: string;
  surface: string;
}

export interface StepUsage extends CallTokens {
  cacheWriteTokens: number;
}

/** One model call to meter: its tokens and its cost at the catalogue's price for the run's model. */
export function modelCall(
  config: { models: ModelSettings },
  run: MeteredRun,
  usage: StepUsage,
  /** own_sub: the account's own model connection paid the provider; metered, never charged. */
  meter: "wallet" | "own_sub" = "wallet",
): MeteredCall {
  return {
    accountId: run.accountId,
    endUserId: run.endUserId,
    runId: run.id,
    agentId: run.agentId,
    model: run.model,
    surface: run.surface,
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    cacheReadTokens: usage.cacheReadTokens,
    cacheCreationTokens: usage.cacheWriteTokens,
    costMicros: callCostMicros(pricingOf(config.models, run.model), usage),
    settledMeter: meter,
  };
}

/** Records one model call (modelCall): its usage row and the run's running totals. */
export const meterCall = (prisma: Db, call: MeteredCall): Promise<void> => recordModelCall(prisma, call);

/**
 * meterCall and the run's checkpoint (runtime/recovery.ts) in one statement, while `owner` holds the
 * run's lease: a step is billed exactly when it is checkpointed. False when nothing was written.
 */
export const meterCallWithCheckpoint = (prisma: Db, call: MeteredCall, owner: string, checkpoint: object): Promise<boolean> =>
  recordModelCallWithCheckpoint(prisma, call, owner, checkpoint);

const ended = isTerminalStatus;

function describeDebit(run: { id: number; model: string }, settlement: Pick<Settlement, "writtenOffMicros">) {
  const base = `Run ${run.id} on ${run.model}`;
  return settlement.writtenOffMicros > 0n
    ? `${base} (${usdExact(settlement.writtenOffMicros)} USD not charged: the balance could not cover it)`
    : base;
}

/**
 * Charges the run's cost since its last settlement, and gives back its hold once it has ended.
 * Safe to call any number of times, from any process: each call settles only what is new.
 */
export const settleRun = (prisma: Db, runId: number) => settleRunCharges(prisma, runId, ended, describeDebit);

/**
 * settleRun as the last statements of a transaction the caller holds (the one that ends the run's
 * pass), given the run's row as that transaction wrote it, and the webhook event it writes with it
 * (in the settlement's own statement when there is one).
 */
export const settleRunIn = (tx: Db, run: RunRow, webhook?: NewWebhookEvent) =>
  settleRunChargesIn(tx, run.id, ended, describeDebit, { locked: run, webhook });

/**
 * Makes the run's `transition` (out of running) with `data` and settles it, in one statement, when what it cost is
 * within its hold (repositories/billing.ts, endRunWithinHold): what settleRunIn would write after
 * transitionRun in a transaction, metering the pass's last model `call` first when given. `expected`
 * are the row's values `webhook` was built from. When the result's `ended` is undefined nothing was
 * written (the call is not metered either), and the caller takes the long way.
 */
export const endRunSettled = (
  prisma: Db,
  run: { id: number; model: string },
  change: {
    transition: RunTransitionName;
    data: RunUpdate;
    webhook?: NewWebhookEvent;
    expected?: Partial<RunRow>;
    requests?: NewRequest[];
    call?: MeteredCall;
    events?: RunEnd["events"];
  },
): Promise<RunEndResult> =>
  endRunWithinHold(prisma, {
    runId: run.id,
    transition: change.transition,
    data: change.data,
    ending: ended(RUN_LIFECYCLE[change.transition].to),
    description: describeDebit(run, { writtenOffMicros: 0n }),
    webhook: change.webhook,
    expected: change.expected,
    requests: change.requests,
    call: change.call,
    events: change.events,
  });
