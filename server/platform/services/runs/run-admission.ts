// Run admission: the one gate every agent turn passes before it runs (POST /runs and every other path
// that starts a run or resumes one with a new message). In one transaction it checks, in this order:
//   1. an unverified email allows UNVERIFIED_RUN_LIMIT runs        → 402 EMAIL_VERIFICATION_REQUIRED
//   2. the balance not held by runs in progress must be positive    → 402 TOKEN_BALANCE_DEPLETED (+ topup_url)
//   3. per_end_user_run_limit runs per billing period               → 402 RUN_LIMIT_REACHED
//   4. per_end_user_cost_limit_cents per billing period             → 402 COST_LIMIT_REACHED
//   5. per_end_user_rate_per_minute turns (starts and replies)      → 429 END_USER_RATE_LIMITED (+ Retry-After)
// Before them, on a plan (services/runs/run-funding.ts, which also decides the meter that pays the run, and
// locks the plan row before the account's): max_concurrent_runs → 429 CONCURRENT_RUN_LIMIT_REACHED, then
// included runs and overage → 402 RUN_LIMIT_REACHED. A run the balance does not pay skips step 2 and
// reserves no hold. It then lets the caller write its run in the same transaction, records the turn,
// and reserves the run's hold last, with a conditional UPDATE (held never exceeds the balance). A
// refusal rolls all of it back.
//
// Every tenant and end-user of a vendor shares one platform account, so admissions must not queue
// behind one lock on the account: the account is read without a lock, and only what has to be decided
// one at a time is locked. The hold's UPDATE decides the balance between racing admissions (and holds
// the account's row only from that statement to the commit, the transaction's last moment). A turn
// under per-end-user caps locks the end-user's row, so that end-user's turns are counted one after the
// other. An unverified account (at most UNVERIFIED_RUN_LIMIT runs, counted) locks the account's row.
// A balance already used up on the unlocked read is refused on that read (refuseOnRead): a refusal
// must not wait behind the admissions it refuses, and the read is exact as of its moment (holds only
// grow until runs settle, which a retry then sees). On a plan, likewise, the plan's figures are read
// without a lock first, and a 429/402 they prove is answered before the plan row's lock
// (refusePlanOnRead, run-funding.ts); the locked count still decides everything else.
//
// The fast path (startAdmittedRunFast, repositories/run-start.ts) does a new run's admission and writes
// in one statement when the answer needs no count: a verified account whose unreserved balance covers
// the hold and that sets no per-end-user caps (when the run has an end-user), for a model no model
// connection of the account serves (runs.ts checks; those runs are own_sub and hold nothing). The hold's conditional
// UPDATE is the same test as here; anything it does not admit comes here, which decides exactly and
// answers the 402/429. An Idempotency-Key is claimed in the same statement (or as this transaction's
// first write), so a key is only ever seen bound to its run.
import type { Db } from "../../repositories/db";
import type { PlatformConfig } from "../../platform-config";
import { PlatformError } from "../../errors";
import { isWriteConflict } from "../../../shared/db-errors";
import { type FastRunOutcome, type FastRunStart, startAdmittedRun } from "../../repositories/run-start";
import {
  type AdmissionAccount,
  countEndUserRuns,
  countLiveOrCompletedRuns,
  endUserCostSince,
  holdFor,
  inAdmissionTransaction,
  lockAdmissionAccount,
  lockEndUser,
  readBalance,
  recordTurn,
  reserveHold,
  turnsSince,
} from "../../repositories/billing";
import { billingPeriod, billingSettings, usdExact } from "../billing/billing";
import { decideFunding, type Meter, paysFromBalance, recordFunding, refusePlanOnRead } from "./run-funding";
import { UNVERIFIED_RUN_LIMIT } from "../account/verification";
import { PROMPT_MEMORY_LIMIT } from "./system-prompt";

export interface AdmissionContext {
  prisma: Db;
  config: PlatformConfig;
}

export interface AdmissionRequest {
  accountId: number;
  /** Row id of the end-user profile; null for an account-level run (no per-end-user caps). */
  endUserId: number | null;
  /** The caller's user_id, for error details. */
  userId: string | null;
  /** A run start or a reply: both are agent turns for the rate cap. */
  kind: "start" | "reply";
  /** The run a reply resumes (it keeps that run's meter). */
  runId?: number;
  /** A start's model (catalogue id): one the account's own model connection serves is paid by it (own_sub). */
  model?: string;
}

export interface Admitted {
  /** What the run reserved out of the balance: record it on the run (hold_micros). */
  holdMicros: bigint;
  /** The account's retention_mode, read with the admission. */
  retentionMode: string;
  /** Who pays the run (services/runs/run-funding.ts). */
  meter: Meter;
  /** A start records its meter with this once its run is written (same transaction): every start must. */
  recordFunding: (runId: number) => Promise<void>;
}

export interface AdmissionOptions {
  /**
   * The transaction's first write (an Idempotency-Key claim): before the end-user's and the account's
   * locks, so every path takes them in one order.
   */
  first?: (tx: Db) => Promise<void>;
}

export const RATE_WINDOW_MS = 60_000;
const MICROS_PER_CENT = 10_000n;

export function topupUrl(ctx: AdmissionContext): string {
  return billingSettings(ctx.config).topupUrl ?? `${ctx.config.publicBaseUrl}/billing/topup`;
}

export function balanceDepleted(ctx: AdmissionContext, account: { balanceMicros: bigint; heldMicros: bigint }) {
  const url = topupUrl(ctx);
  const message =
    account.balanceMicros > 0n
      ? "TOKEN_BALANCE_DEPLETED: the whole token balance is reserved by runs in progress; top up or wait for them to finish"
      : "TOKEN_BALANCE_DEPLETED: the token balance is used up; top up to start runs";
  return new PlatformError({
    type: "billing_error",
    errorCode: "TOKEN_BALANCE_DEPLETED",
    message,
    details: {
      topup_url: url,
      balance_micros: Number(account.balanceMicros),
      held_micros: Number(account.heldMicros),
    },
    extra: { topup_url: url },
  });
}

async function checkCaps(tx: Db, request: AdmissionRequest, account: AdmissionAccount, now: Date, fromBalance: boolean) {
  if (account.emailVerifiedAt === null && (await countLiveOrCompletedRuns(tx, request.accountId)) >= UNVERIFIED_RUN_LIMIT) {
    throw verificationRequired();
  }
  if (fromBalance && account.balanceMicros - account.heldMicros <= 0n) return; // reserveHold refuses it next, with the right error
  if (request.endUserId === null) return;
  const endUserId = request.endUserId;
  const period = billingPeriod(now);

  if (account.perEndUserRunLimit !== null) {
    const used = await countEndUserRuns(tx, request.accountId, endUserId, period.start);
    if (used >= account.perEndUserRunLimit) {
      throw new PlatformError({
        type: "billing_error",
        errorCode: "RUN_LIMIT_REACHED",
        message: `RUN_LIMIT_REACHED: end-user ${request.userId} has used its ${account.perEndUserRunLimit} runs for this billing period (per_end_user_run_limit)`,
        details: {
          end_user_id: request.userId,
          limit: account.perEndUserRunLimit,
          used,
          period_start: period.start.toISOString(),
          period_end: period.end.toISOString(),
        },
      });
    }
  }
  if (account.perEndUserCostLimitCents !== null) {
    const used = await endUserCostSince(tx, request.accountId, endUserId, period.start);
    const limit = BigInt(account.perEndUserCostLimitCents) * MICROS_PER_CENT;
    if (used >= limit) {
      throw new PlatformError({
        type: "billing_error",
        errorCode: "COST_LIMIT_REACHED",
        message: `COST_LIMIT_REACHED: end-user ${request.userId} has used its ${account.perEndUserCostLimitCents} cents for this billing period (per_end_user_cost_limit_cents)`,
        details: {
          end_user_id: request.userId,
          limit_cents: account.perEndUserCostLimitCents,
          used_usd: usdExact(used),
          period_start: period.start.toISOString(),
          period_end: period.end.toISOString(),
        },
      });
    }
  }
  if (account.perEndUserRatePerMinute !== null) {
    const window = await turnsSince(tx, request.accountId, endUserId, new Date(now.getTime() - RATE_WINDOW_MS));
    if (window.count >= account.perEndUserRatePerMinute) {
      // A turn becomes possible again when the oldest turn in the window leaves it.
      const freeAt = (window.oldest?.getTime() ?? now.getTime()) + RATE_WINDOW_MS;
      const retryAfter = Math.max(1, Math.ceil((freeAt - now.getTime()) / 1000));
      throw new PlatformError({
        type: "rate_limit_error",
        errorCode: "END_USER_RATE_LIMITED",
        message: `END_USER_RATE_LIMITED: end-user ${request.userId} may take ${account.perEndUserRatePerMinute} turns per minute; retry in ${retryAfter} s`,
        details: { end_user_id: request.userId, limit_per_minute: account.perEndUserRatePerMinute, retry_after: retryAfter },
        headers: { "Retry-After": String(retryAfter) },
      });
    }
  }
}

/**
 * The refusal of a run the balance would pay when the unlocked read shows it used up: no lock taken,
 * nothing written. A plan's refusals have their own (refusePlanOnRead, run-funding.ts).
 */
async function refuseOnRead(ctx: AdmissionContext, tx: Db, request: AdmissionRequest, account: AdmissionAccount) {
  if (account.balanceMicros - account.heldMicros > 0n) return;
  // The spec's order: the verification cap's error before the balance's.
  if (account.emailVerifiedAt === null && (await countLiveOrCompletedRuns(tx, request.accountId)) >= UNVERIFIED_RUN_LIMIT) {
    throw verificationRequired();
  }
  throw balanceDepleted(ctx, account);
}

function verificationRequired() {
  return new PlatformError({
    type: "billing_error",
    errorCode: "EMAIL_VERIFICATION_REQUIRED",
    message: `EMAIL_VERIFICATION_REQUIRED: an account whose email is not verified may run ${UNVERIFIED_RUN_LIMIT} runs; follow the emailed link (POST /verify/resend sends it again)`,
    details: { unverified_run_limit: UNVERIFIED_RUN_LIMIT },
  });
}

const hasEndUserCaps = (account: AdmissionAccount) =>
  account.perEndUserRunLimit !== null || account.perEndUserCostLimitCents !== null || account.perEndUserRatePerMinute !== null;

/** The balance moved between the admission's read and its hold: read again and decide again. */
class HoldMoved extends Error {}
const HOLD_ATTEMPTS = 3;

/**
 * Admits one agent turn, or throws the spec's 402/429. `start` writes the run (or resumes it) inside
 * the admission's transaction with the hold it must record: use the `tx` it gets, never another
 * client (PGlite has one connection, and the writes must commit or roll back with the hold).
 */
export async function admitRun<T>(
  ctx: AdmissionContext,
  request: AdmissionRequest,
  start: (tx: Db, admitted: Admitted) => Promise<T>,
  options: AdmissionOptions = {},
): Promise<T> {
  const maxHold = BigInt(billingSettings(ctx.config).runHoldMicros);
  for (let attempt = 1; ; attempt++) {
    try {
      return await inAdmissionTransaction(ctx.prisma, request.accountId, options.first, async (tx, read) => {
        let account = read;
        const now = new Date();
        // Without a plan, deciding who pays takes no lock, so a used-up balance is refused before any;
        // on a plan, so is a refusal the plan's unlocked read proves (run-funding.ts).
        let funding = account.planAnchor !== null ? undefined : await decideFunding(tx, ctx.config, { ...request, hasPlan: false }, now);
        if (funding && paysFromBalance(funding.meter)) await refuseOnRead(ctx, tx, request, account);
        if (account.planAnchor !== null) await refusePlanOnRead(tx, ctx.config, request, account.planAnchor, now);
        // Lock order: end-user, then the plan (run-funding.ts), then account (the hold's UPDATE takes the
        // account's row last).
        if (request.endUserId !== null && hasEndUserCaps(account)) await lockEndUser(tx, request.endUserId);
        funding ??= await decideFunding(tx, ctx.config, { ...request, hasPlan: true }, now);
        const fromBalance = paysFromBalance(funding.meter);
        if (account.emailVerifiedAt === null) account = await lockAdmissionAccount(tx, request.accountId);
        await checkCaps(tx, request, account, now, fromBalance);
        const holdMicros = fromBalance ? holdFor(account.balanceMicros, maxHold) : 0n;
        let funded = request.kind === "reply";
        const result = await start(tx, {
          holdMicros,
          retentionMode: account.retentionMode,
          meter: funding.meter,
          recordFunding: async (runId) => {
            funded = true;
            await recordFunding(tx, request.accountId, runId, funding, now);
          },
        });
        if (!funded) throw new Error("admitRun: a started run must record its funding (admitted.recordFunding)");
        if (request.endUserId !== null) {
          await recordTurn(tx, request.accountId, request.endUserId, request.kind, now, new Date(now.getTime() - 2 * RATE_WINDOW_MS));
        }
        if (fromBalance && !(await reserveHold(tx, request.accountId, maxHold, holdMicros))) {
          const current = await readBalance(tx, request.accountId);
          const due = holdFor(current.balanceMicros, maxHold);
          if (due !== holdMicros && due > 0n && current.balanceMicros - current.heldMicros >= due) throw new HoldMoved();
          throw balanceDepleted(ctx, current);
        }
        return result;
      });
    } catch (error) {
      // A deadlock PostgreSQL broke rolled all of it back: decide again, like a moved hold.
      if (!(error instanceof HoldMoved) && !isWriteConflict(error)) throw error;
      if (attempt >= HOLD_ATTEMPTS) {
        if (!(error instanceof HoldMoved)) throw error;
        throw balanceDepleted(ctx, await readBalance(ctx.prisma, request.accountId));
      }
    }
  }
}

/**
 * The fast path of a new run (see the header): admission and every write of the run in one statement.
 * `not_admitted` sends the run to admitRun, which decides exactly; nothing was written.
 */
export function startAdmittedRunFast(
  ctx: AdmissionContext,
  request: Omit<AdmissionRequest, "kind">,
  run: Omit<FastRunStart, "accountId" | "endUserId" | "maxHoldMicros" | "turn" | "passMemories">,
): Promise<FastRunOutcome> {
  const now = new Date();
  return startAdmittedRun(ctx.prisma, {
    ...run,
    accountId: request.accountId,
    endUserId: request.endUserId,
    maxHoldMicros: BigInt(billingSettings(ctx.config).runHoldMicros),
    passMemories: PROMPT_MEMORY_LIMIT,
    // Like recordTurn: every turn of an end-user is recorded, caps or not, and old ones forgotten.
    turn: { at: now, forgetBefore: new Date(now.getTime() - 2 * RATE_WINDOW_MS) },
  });
}
