// Money: the prepaid balance and its ledger, the holds runs place on it, metered model calls, the
// end-user turns the rate cap counts, and the aggregates /usage reports. The design (hold at
// admission, settle as the run goes, never below zero) is in docs/platform-api.md, "Money".
import type { PrismaClient } from "@/server/generated/prisma/client";
import type { Tx } from "./db";
import { Prisma } from "@/server/generated/prisma/client";
import { ACTIVE_STATUSES } from "@inlay/core/schemas/run-constants";
import type { RunFrame } from "@inlay/core/schemas/runs";
import { RUN_LIFECYCLE, type RunTransitionName } from "@inlay/core/schemas/run-lifecycle";
import { type AppendedEvents, eventAppendCtes, type WakeUp } from "./run-events";
import { type RunRow, type RunUpdate, runMatchSql, runSetSql } from "./runs";
import { type NewWebhookEvent, webhookEventInsert } from "./webhook-events";
import { execute, queryRows } from "./direct";
import { fromColumns } from "./raw-rows";
import { type NewRequest, requestsInsert } from "./permission-requests";

// ---------------------------------------------------------------------------------------------
// Ledger

export interface LedgerEntry {
  type: "topup" | "debit" | "refund" | "adjustment";
  amountMicros: bigint;
  description: string;
  runId?: number | null;
}

/**
 * Adds a ledger entry and moves the balance by its amount, as one step. Refuses (null) an entry that
 * would take the balance below what runs in progress hold (and so below zero).
 */
export function addLedgerEntry(prisma: PrismaClient, accountId: number, entry: LedgerEntry): Promise<bigint | null> {
  return prisma.$transaction((tx) => addLedgerEntryIn(tx as unknown as Tx, accountId, entry));
}

/** addLedgerEntry as a statement of a transaction the caller holds (a payment's credit, with its guard). */
export async function addLedgerEntryIn(tx: Tx, accountId: number, entry: LedgerEntry): Promise<bigint | null> {
  const rows = await tx.$queryRaw<{ balance: bigint }[]>`
    UPDATE platform_accounts SET balance_micros = balance_micros + ${entry.amountMicros}, updated_at = now()
    WHERE id = ${accountId} AND balance_micros + ${entry.amountMicros} >= held_micros
    RETURNING balance_micros AS balance`;
  const balance = rows[0]?.balance;
  if (balance === undefined) return null;
  await tx.platformBalanceTransaction.create({
    data: {
      accountId,
      type: entry.type,
      amountMicros: entry.amountMicros,
      balanceAfterMicros: balance,
      runId: entry.runId ?? null,
      description: entry.description,
    },
  });
  return balance;
}

export const findBalance = (prisma: PrismaClient, accountId: number) =>
  prisma.platformAccount.findUnique({ where: { id: accountId }, select: { balanceMicros: true, heldMicros: true } });

/** The newest ledger entries first. */
export const listLedger = (prisma: PrismaClient, accountId: number, take: number) =>
  prisma.platformBalanceTransaction.findMany({ where: { accountId }, orderBy: { id: "desc" }, take });

export type LedgerRow = Awaited<ReturnType<typeof listLedger>>[number];

// ---------------------------------------------------------------------------------------------
// Admission: one transaction per run start. The hold is a conditional UPDATE of the account's row,
// which serialises admissions only for the moment it takes; what must be decided one at a time beyond
// it (an unverified account's run count, an end-user's caps) locks its own row (services/runs/run-admission.ts).

export interface AdmissionAccount {
  balanceMicros: bigint;
  heldMicros: bigint;
  emailVerifiedAt: Date | null;
  perEndUserRunLimit: number | null;
  perEndUserCostLimitCents: number | null;
  perEndUserRatePerMinute: number | null;
  /** The account's retention_mode: what a run started now stores (read here, not in a separate query). */
  retentionMode: string;
  /**
   * The anchor of the account's plan windows; null when it has no plan. On a plan, admission reads the
   * plan's figures for that window without a lock first (refusePlanOnRead), then locks the plan row.
   */
  planAnchor: Date | null;
}

const readAdmissionAccount = async (tx: Tx, accountId: number, lock: boolean): Promise<AdmissionAccount> => {
  // NO KEY UPDATE, as every writer of the balance takes: it excludes them all, yet not the KEY SHARE
  // locks of inserts that reference the account (see settleRunChargesIn on the deadlock FOR UPDATE risks).
  const forUpdate = lock ? Prisma.sql`FOR NO KEY UPDATE` : Prisma.empty;
  const rows = await tx.$queryRaw<AdmissionAccount[]>`
    SELECT balance_micros AS "balanceMicros", held_micros AS "heldMicros", email_verified_at AS "emailVerifiedAt",
           per_end_user_run_limit AS "perEndUserRunLimit", per_end_user_cost_limit_cents AS "perEndUserCostLimitCents",
           per_end_user_rate_per_minute AS "perEndUserRatePerMinute", retention_mode AS "retentionMode",
           (SELECT period_anchor FROM platform_account_plans WHERE account_id = ${accountId}) AS "planAnchor"
    FROM platform_accounts WHERE id = ${accountId} ${forUpdate}`;
  const account = rows[0];
  if (!account) throw new Error(`account ${accountId} is gone`);
  return account;
};

/**
 * Runs `first` (when given) and then `work` in a transaction, handing `work` the account as read then
 * (not locked: concurrent admissions see the same figures; the hold's conditional UPDATE decides).
 */
export function inAdmissionTransaction<T>(
  prisma: PrismaClient,
  accountId: number,
  first: ((tx: Tx) => Promise<void>) | undefined,
  work: (tx: Tx, account: AdmissionAccount) => Promise<T>,
): Promise<T> {
  return prisma.$transaction(async (transaction) => {
    const tx = transaction as unknown as Tx;
    await first?.(tx);
    return work(tx, await readAdmissionAccount(tx, accountId, false));
  });
}

/** Locks the account's row and reads it again: admissions of the account wait for this transaction. */
export const lockAdmissionAccount = (tx: Tx, accountId: number) => readAdmissionAccount(tx, accountId, true);

/** Locks the end-user's profile row: admissions of that end-user wait for this transaction. */
export async function lockEndUser(tx: Tx, endUserId: number): Promise<void> {
  await tx.$queryRaw`SELECT id FROM platform_end_users WHERE id = ${endUserId} FOR UPDATE`;
}

/** What a run reserves: `maxHold`, or the whole balance when that is smaller. */
export const holdFor = (balanceMicros: bigint, maxHold: bigint) => (balanceMicros < maxHold ? balanceMicros : maxHold);

/**
 * Reserves exactly `hold`, which must be what holdFor() gives for the balance now: `maxHold` when the
 * balance is at least that, else the whole balance (then only while nothing else is held). The WHERE
 * clause is the guarantee: what is held never exceeds the balance. Under concurrent updates PostgreSQL
 * re-checks it against the newest row. False when it could not be reserved.
 */
export async function reserveHold(tx: Tx, accountId: number, maxHold: bigint, hold: bigint): Promise<boolean> {
  const updated = await tx.$executeRaw`
    UPDATE platform_accounts SET held_micros = held_micros + ${hold}
    WHERE id = ${accountId} AND balance_micros > 0 AND ${hold} > 0
      AND LEAST(${maxHold}::bigint, balance_micros) = ${hold}
      AND balance_micros - held_micros >= ${hold}`;
  return updated === 1;
}

/** The balance and holds as committed now (inside a transaction: a fresh read each time). */
export async function readBalance(tx: Tx, accountId: number) {
  const rows = await tx.$queryRaw<{ balanceMicros: bigint; heldMicros: bigint }[]>`
    SELECT balance_micros AS "balanceMicros", held_micros AS "heldMicros" FROM platform_accounts WHERE id = ${accountId}`;
  return rows[0] ?? { balanceMicros: 0n, heldMicros: 0n };
}

/** Adds a hold to an existing run (a reply that resumes it); the account side is reserveHold's. */
export async function addRunHold(tx: Tx, runId: number, holdMicros: bigint): Promise<void> {
  await tx.$executeRaw`UPDATE platform_runs SET hold_micros = hold_micros + ${holdMicros} WHERE id = ${runId}`;
}

/** Runs of the account that completed or are still in progress (what the unverified-email cap counts). */
export const countLiveOrCompletedRuns = (tx: Tx, accountId: number) =>
  tx.platformRun.count({ where: { accountId, status: { in: ["completed", ...ACTIVE_STATUSES] } } });

/** An end-user's runs that completed since `since`, plus those in progress (which count against its cap). */
export const countEndUserRuns = (tx: Tx, accountId: number, endUserId: number, since: Date) =>
  tx.platformRun.count({
    where: {
      accountId,
      endUserId,
      OR: [{ status: "completed", finishedAt: { gte: since } }, { status: { in: [...ACTIVE_STATUSES] } }],
    },
  });

export async function endUserCostSince(tx: Tx, accountId: number, endUserId: number, since: Date): Promise<bigint> {
  const sum = await tx.platformUsageRecord.aggregate({
    where: { accountId, endUserId, createdAt: { gte: since } },
    _sum: { costMicros: true },
  });
  return sum._sum.costMicros ?? 0n;
}

/** Turns of an end-user since `since`: how many, and when the oldest was. */
export async function turnsSince(tx: Tx, accountId: number, endUserId: number, since: Date) {
  const result = await tx.platformTurn.aggregate({
    where: { accountId, endUserId, createdAt: { gt: since } },
    _count: { _all: true },
    _min: { createdAt: true },
  });
  return { count: result._count._all, oldest: result._min.createdAt };
}

/** Records a turn and forgets the end-user's turns older than `forgetBefore`. */
export async function recordTurn(tx: Tx, accountId: number, endUserId: number, kind: "start" | "reply", at: Date, forgetBefore: Date) {
  await tx.platformTurn.deleteMany({ where: { accountId, endUserId, createdAt: { lt: forgetBefore } } });
  await tx.platformTurn.create({ data: { accountId, endUserId, kind, createdAt: at } });
}

// ---------------------------------------------------------------------------------------------
// Metering and settlement

export interface MeteredCall {
  accountId: number;
  endUserId: number | null;
  runId: number;
  agentId: number;
  model: string;
  surface: string;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheCreationTokens: number;
  costMicros: bigint;
  /** wallet (default) or own_sub: an own_sub call's cost counts as settled at once, so the balance never pays it. */
  settledMeter?: "wallet" | "own_sub";
}

/**
 * One model call: its usage row and the run's running totals, together (one statement, so atomic).
 * The row's settled_meter is own_sub for a call on the account's own model connection, else the run's
 * (services/runs/run-funding.ts): wallet when it has no funding row.
 */
export async function recordModelCall(prisma: PrismaClient, call: MeteredCall): Promise<void> {
  await execute(prisma, Prisma.sql`
    WITH usage AS (${usageRecordInsert(call)})
    UPDATE platform_runs SET ${runTotalsSet(call)}
    WHERE id = ${call.runId}`);
}

/** The run's running totals after `call` (the SET list of recordModelCall's UPDATE). */
function runTotalsSet(call: MeteredCall): Prisma.Sql {
  // A call made on the account's own connection is own_sub whatever the run's funding row says.
  const ownSub = call.settledMeter === "own_sub";
  return Prisma.sql`input_tokens = input_tokens + ${call.inputTokens}, output_tokens = output_tokens + ${call.outputTokens},
    cost_micros = cost_micros + ${call.costMicros}, settled_micros = settled_micros + ${ownSub ? call.costMicros : 0n},
    updated_at = now()`;
}

/**
 * recordModelCall together with the run's checkpoint, in one statement, only while the run is running
 * under `owner`'s lease: false when nothing was written (neither the checkpoint nor the call).
 */
export async function recordModelCallWithCheckpoint(prisma: PrismaClient, call: MeteredCall, owner: string, checkpoint: object): Promise<boolean> {
  const rows = await queryRows<{ saved: number }>(
    prisma,
    Prisma.sql`
    WITH saved AS (
      UPDATE platform_runs SET checkpoint = ${JSON.stringify(checkpoint)}::jsonb, ${runTotalsSet(call)}
      WHERE id = ${call.runId} AND lease_owner = ${owner} AND status = 'running'
      RETURNING id
    ), usage AS (${usageRecordInsert(call, Prisma.sql`EXISTS (SELECT 1 FROM saved)`)})
    SELECT count(*)::int AS saved FROM saved`,
  );
  return (rows[0]?.saved ?? 0) > 0;
}

/** The call's usage row (recordModelCall), written only `when` that holds. */
const usageRecordInsert = (call: MeteredCall, when?: Prisma.Sql) => Prisma.sql`
  INSERT INTO platform_usage_records (account_id, end_user_id, run_id, agent_id, model, surface, settled_meter,
    input_tokens, output_tokens, cache_creation_tokens, cache_read_tokens, cost_micros)
  SELECT ${call.accountId}::int, ${call.endUserId}::int, ${call.runId}::int, ${call.agentId}::int, ${call.model}::text, ${call.surface}::text,
    ${call.settledMeter === "own_sub" ? Prisma.sql`'own_sub'` : Prisma.sql`COALESCE((SELECT meter FROM platform_run_fundings WHERE run_id = ${call.runId}::int), 'wallet')`},
    ${call.inputTokens}::int, ${call.outputTokens}::int, ${call.cacheCreationTokens}::int, ${call.cacheReadTokens}::int, ${call.costMicros}::bigint
  ${when ? Prisma.sql`WHERE ${when}` : Prisma.empty}`;

interface SettledRun {
  id: number;
  accountId: number;
  status: string;
  model: string;
  cost: bigint;
  settled: bigint;
  hold: bigint;
}

export interface Settlement {
  /** Debited from the balance. */
  chargedMicros: bigint;
  /** Metered but not charged: the balance could not cover it. */
  writtenOffMicros: bigint;
  /** Hold given back to the balance (the run ended). */
  releasedMicros: bigint;
  /**
   * Whether the account watches its balance (auto-reload or a low-balance alert), when the settlement's
   * statement read it (services/billing/payments.ts, checkBalanceCrossings); undefined otherwise.
   */
  watches?: boolean;
}

export interface SettleInOptions {
  /** The run's row as this transaction last wrote it (so it holds the row's lock): not read again. */
  locked?: RunRow;
  /**
   * A webhook event the transaction writes with the run's change: sent in the settlement's statement
   * when it makes one, else alone; either way before the commit.
   */
  webhook?: NewWebhookEvent;
}

/**
 * Charges what the run has cost since it was last settled: first out of its own hold, then, if the
 * estimate fell short, out of what nobody holds, never more; the rest is written off, so the balance
 * never goes below what other runs hold (nor below zero). A run that ended (`release`) gives back
 * what is left of its hold. The run's row is locked first, so two settlements of one run (the
 * executor's and a cancel's) never charge the same cost twice.
 */
export function settleRunCharges(
  prisma: PrismaClient,
  runId: number,
  release: (status: string) => boolean,
  describe: (run: { id: number; model: string }, settlement: Settlement) => string,
): Promise<Settlement | null> {
  return prisma.$transaction((tx) => settleRunChargesIn(tx as unknown as Tx, runId, release, describe));
}

/**
 * settleRunCharges inside a transaction the caller holds, as its last statements. Within the run's
 * hold (the usual case) the account moves as the transaction commits (a pending settlement); past
 * it, the account's row is locked and read here and stays locked to the commit.
 *
 * Both rows are locked FOR NO KEY UPDATE: exclusive against every other writer of the balance and of
 * the run (settlements, admissions' holds, ledger entries all take at least that), but not against the
 * KEY SHARE locks that inserts referencing them take. The caller's transaction has usually inserted
 * such rows already (its webhook event references the account); FOR UPDATE would then have to wait
 * for every other transaction doing the same, and two of them would deadlock. Run event inserts
 * (which reference the run) never wait for a settlement either.
 */
export async function settleRunChargesIn(
  tx: Tx,
  runId: number,
  release: (status: string) => boolean,
  describe: (run: { id: number; model: string }, settlement: Settlement) => string,
  options: SettleInOptions = {},
): Promise<Settlement | null> {
  const { locked, webhook } = options;
  const writeWebhook = async () => {
    if (webhook) await tx.$executeRaw(webhookEventInsert(webhook));
  };
  const runs: SettledRun[] = locked
    ? [
        {
          id: locked.id,
          accountId: locked.accountId,
          status: locked.status,
          model: locked.model,
          cost: locked.costMicros,
          settled: locked.settledMicros,
          hold: locked.holdMicros,
        },
      ]
    : await tx.$queryRaw<SettledRun[]>`
        SELECT id, account_id AS "accountId", status, model, cost_micros AS cost, settled_micros AS settled, hold_micros AS hold
        FROM platform_runs WHERE id = ${runId} FOR NO KEY UPDATE`;
  const run = runs[0];
  if (!run) {
    await writeWebhook();
    return null;
  }
  const due = run.cost - run.settled;
  const ending = release(run.status);
  if (due === 0n && !(ending && run.hold > 0n)) {
    await writeWebhook();
    return null;
  }
  const fromHold = due < run.hold ? due : run.hold;
  const released = ending ? run.hold - fromHold : 0n;
  const beyondHold = due - fromHold;
  if (beyondHold === 0n) {
    // The usual case: the cost is within the run's hold, which is the balance's already, so nothing
    // needs the balance read. One statement writes the run's side and a pending settlement, which a
    // deferred trigger applies to the account (a relative update) and the ledger as the transaction
    // commits (migration deferred_settlements): the account's row, which every admission and
    // settlement of the account meets, is not locked while this transaction waits for its client.
    // The webhook event the transaction writes goes in the same statement, and the statement reads
    // whether the account watches its balance (what the pass's end asks next): no round trip apart.
    const settlement: Settlement = { chargedMicros: fromHold, writtenOffMicros: 0n, releasedMicros: released };
    const rows = await tx.$queryRaw<{ watches: boolean | null }[]>`
      WITH run AS (
        UPDATE platform_runs SET settled_micros = ${run.cost}, hold_micros = ${run.hold - fromHold - released} WHERE id = ${runId}
      )${webhook ? Prisma.sql`, webhook AS (${webhookEventInsert(webhook)})` : Prisma.empty}
      INSERT INTO platform_pending_settlements (account_id, run_id, charge_micros, release_micros, description)
      VALUES (${run.accountId}, ${runId}, ${fromHold}, ${released}, ${describe(run, settlement)})
      RETURNING (SELECT auto_reload_enabled OR low_balance_threshold_cents IS NOT NULL
                 FROM platform_billing_settings WHERE account_id = ${run.accountId}) AS watches`;
    return { ...settlement, watches: rows[0]?.watches ?? false };
  }
  await writeWebhook();
  // The cost went past the hold: what else it may take depends on what nobody holds. Two statements,
  // the transaction's last: the account's row locked (NO KEY UPDATE) and read at its newest, then one
  // statement writes the run's side, the account's and the ledger entry.
  // A run the balance does not pay (a plan's, or on the account's own subscription: services/runs/run-funding.ts)
  // holds nothing, so its cost always comes here: it is recorded as settled, and nothing is charged.
  const accounts = await tx.$queryRaw<{ balance: bigint; held: bigint; meter: string | null }[]>`
    SELECT balance_micros AS balance, held_micros AS held,
           (SELECT meter FROM platform_run_fundings WHERE run_id = ${runId}) AS meter
    FROM platform_accounts WHERE id = ${run.accountId} FOR NO KEY UPDATE`;
  const account = accounts[0];
  if (!account) return null;
  if (account.meter === "plan" || account.meter === "own_sub") {
    await tx.$executeRaw`
      UPDATE platform_runs SET settled_micros = ${run.cost}, hold_micros = ${run.hold - released} WHERE id = ${runId}`;
    if (released > 0n) {
      await tx.$executeRaw`UPDATE platform_accounts SET held_micros = held_micros - ${released}, updated_at = now() WHERE id = ${run.accountId}`;
    }
    return { chargedMicros: 0n, writtenOffMicros: 0n, releasedMicros: released };
  }
  const free = account.balance - account.held;
  const extra = beyondHold < free ? beyondHold : free > 0n ? free : 0n;
  const charged = fromHold + extra;
  const balanceAfter = account.balance - charged;
  const settlement = { chargedMicros: charged, writtenOffMicros: beyondHold - extra, releasedMicros: released };
  await tx.$executeRaw`
    WITH run AS (
      UPDATE platform_runs SET settled_micros = ${run.cost}, hold_micros = ${run.hold - fromHold - released} WHERE id = ${runId}
    ),
    ledger AS (
      INSERT INTO platform_balance_transactions (account_id, type, amount_micros, balance_after_micros, run_id, description, created_at)
      SELECT ${run.accountId}, 'debit', ${-charged}, ${balanceAfter}, ${runId}, ${describe(run, settlement)}, now()
      WHERE ${due > 0n}
    )
    UPDATE platform_accounts
    SET balance_micros = ${balanceAfter}, held_micros = held_micros - ${fromHold + released}, updated_at = now()
    WHERE id = ${run.accountId}`;
  if (settlement.writtenOffMicros > 0n) await markReleased(tx, run.accountId, runId);
  return settlement;
}

export interface RunEnd {
  runId: number;
  /** The run's transition (the pass's end): in a status not in its `from`, the run is left alone. */
  transition: RunTransitionName;
  /** The rest of the run's change (transitionRun's data); it sets neither settled_micros nor hold_micros. */
  data: RunUpdate;
  /** Whether the new status ends the run: what is left of its hold is given back. */
  ending: boolean;
  /** The ledger entry's description of a debit with nothing written off (the only kind made here). */
  description: string;
  /** The run's webhook event, built before the statement from `expected` and `data`. */
  webhook?: NewWebhookEvent;
  /** Values of the run's row the webhook event was built from: the statement changes nothing unless they hold. */
  expected?: Partial<RunRow>;
  /** Requests for a person the run pauses on (createRequests), written with its change. */
  requests?: NewRequest[];
  /**
   * The pass's last model call, not metered yet: metered first in the statement, as recordModelCall
   * would (its usage row, the run's tokens and cost), and settled with the rest. Nothing is metered
   * when nothing else is written: the caller then meters it with recordModelCall.
   */
  call?: MeteredCall;
  /**
   * The pass's last frames, appended to the run's log only if it ended here (`ended` set), after the
   * frames already written (the caller waited for those), with their NOTIFY when `wake` is given.
   */
  events?: { frames: RunFrame[]; wake?: WakeUp };
}

export type RunEndResult =
  /** `appended`: the ids of `events` (when given), as appendEventsOfRuns returns them. */
  | { ended: RunRow; settlement: Settlement; appended?: AppendedEvents }
  /** The run is not in `from` (any more): nothing was written. */
  | { ended: null }
  /**
   * The run is in `from`, but its cost went past its hold or `expected` does not hold: nothing was
   * written; the caller ends it the long way (transitionRun, then settleRunChargesIn, in a transaction).
   */
  | { ended: undefined };

/**
 * Ends a run's pass in one statement (its own transaction: no BEGIN and COMMIT), in the usual case:
 * what the run cost since its last settlement is within its hold. The run's change, its settlement as
 * settleRunChargesIn writes it within the hold (the run's side and a pending settlement, applied at the
 * commit by the deferred trigger), its webhook event, the requests it pauses on, the metering of the
 * pass's last model call, and whether the account watches its balance.
 *
 * `cur` locks the run's row (NO KEY UPDATE, as settleRunChargesIn) and reads its cost, settled and hold
 * as they are before the change: the UPDATE's RETURNING gives only the new ones, and the settlement's
 * amounts are the old ones'. Under READ COMMITTED the lock waits for a concurrent writer and reads its
 * version, which the UPDATE then changes too. Nothing is written unless the UPDATE matched: the
 * INSERTs select from it.
 */
export async function endRunWithinHold(prisma: PrismaClient, end: RunEnd): Promise<RunEndResult> {
  const { call } = end;
  // Frames are written only with the run's change: none when the statement writes nothing else.
  const events = end.events?.frames.length ? end.events : undefined;
  if (call && call.runId !== end.runId) throw new Error("endRunWithinHold: the call is another run's");
  // Metered as recordModelCall would before the statement: `cur` reads the cost (and settled) as they are after it.
  const ownSub = call?.settledMeter === "own_sub";
  const from = Prisma.join(RUN_LIFECYCLE[end.transition].from.map((status) => Prisma.sql`${status}`));
  const moved = Prisma.sql`EXISTS (SELECT 1 FROM moved)`;
  const rows = await queryRows<Record<string, unknown>>(
    prisma,
    Prisma.sql`
    WITH cur AS (
      SELECT id, cost_micros${call ? Prisma.sql` + ${call.costMicros}::bigint` : Prisma.empty} AS cost,
        settled_micros${ownSub ? Prisma.sql` + ${call!.costMicros}::bigint` : Prisma.empty} AS settled, hold_micros AS hold
      FROM platform_runs WHERE id = ${end.runId} AND status IN (${from}) FOR NO KEY UPDATE
    ),
    moved AS (
      UPDATE platform_runs AS r
      SET ${runSetSql(end.transition, end.data, "r")}, settled_micros = cur.cost,${
        call
          ? Prisma.sql` cost_micros = cur.cost, input_tokens = r.input_tokens + ${call.inputTokens}::int,
          output_tokens = r.output_tokens + ${call.outputTokens}::int,`
          : Prisma.empty}
          hold_micros = CASE WHEN ${end.ending}::boolean THEN 0 ELSE cur.hold - (cur.cost - cur.settled) END
      FROM cur
      WHERE r.id = cur.id AND r.status IN (${from}) AND cur.cost - cur.settled <= cur.hold
        AND ${runMatchSql(end.expected ?? {}, "r")}
      RETURNING r.*, cur.cost - cur.settled AS "endCharge",
        CASE WHEN ${end.ending}::boolean THEN cur.hold - (cur.cost - cur.settled) ELSE 0 END AS "endRelease", cur.hold AS "endHold"
    ),
    pending AS (
      INSERT INTO platform_pending_settlements (account_id, run_id, charge_micros, release_micros, description)
      SELECT account_id, id, "endCharge", "endRelease", ${end.description}::text FROM moved
      -- settleRunChargesIn settles nothing when nothing is due and no hold is given back.
      WHERE "endCharge" <> 0 OR (${end.ending}::boolean AND "endHold" > 0)
    )${end.webhook ? Prisma.sql`, webhook AS (${webhookEventInsert(end.webhook, moved)})` : Prisma.empty}${
      end.requests?.length ? Prisma.sql`, requests AS (${requestsInsert(end.runId, end.requests, moved)})` : Prisma.empty}${
      call ? Prisma.sql`, usage AS (${usageRecordInsert(call, moved)})` : Prisma.empty}${
      events ? Prisma.sql`, ${eventAppendCtes(events.frames.map((frame) => [end.runId, frame] as const), events.wake, moved)}` : Prisma.empty}
    SELECT moved.*, (SELECT auto_reload_enabled OR low_balance_threshold_cents IS NOT NULL
                     FROM platform_billing_settings WHERE account_id = moved.account_id) AS "endWatches"${
      events
        ? Prisma.sql`, (SELECT id FROM prev) AS "endEventsAfter", (SELECT array_agg(id ORDER BY id) FROM ins) AS "endEventIds"${
            events.wake ? Prisma.sql`, (SELECT count(*) FROM woken) AS "endWoken"` : Prisma.empty}`
        : Prisma.empty}
    FROM cur LEFT JOIN moved ON true`,
  );
  const row = rows[0];
  if (!row) return { ended: null };
  const { endCharge, endRelease, endHold: _hold, endWatches, endEventsAfter, endEventIds, endWoken: _woken, ...columns } = row;
  if (columns.id === null || columns.id === undefined) return { ended: undefined };
  const appended: AppendedEvents | undefined = events && {
    after: BigInt((endEventsAfter ?? 0) as bigint),
    ids: ((endEventIds ?? []) as (bigint | string | number)[]).map((id) => BigInt(id)),
    ...(events.wake ? { othersWoken: true } : {}),
  };
  return {
    ...(appended ? { appended } : {}),
    ended: fromColumns<RunRow>(columns),
    settlement: {
      chargedMicros: BigInt(endCharge as bigint),
      writtenOffMicros: 0n,
      releasedMicros: BigInt(endRelease as bigint),
      watches: endWatches === true,
    },
  };
}

/**
 * A wallet run whose cost the balance could not cover settles as `released` (services/runs/run-funding.ts):
 * its funding row says so, and its usage rows (so /usage/timeseries?settled_meter=released finds them).
 */
async function markReleased(tx: Tx, accountId: number, runId: number): Promise<void> {
  await tx.$executeRaw`
    WITH funding AS (
      INSERT INTO platform_run_fundings (run_id, account_id, meter, overage_cents, created_at)
      VALUES (${runId}, ${accountId}, 'released', 0, now())
      ON CONFLICT (run_id) DO UPDATE SET meter = 'released'
    )
    UPDATE platform_usage_records SET settled_meter = 'released' WHERE run_id = ${runId} AND settled_meter = 'wallet'`;
}

// ---------------------------------------------------------------------------------------------
// Reports

export interface UsageFilter {
  accountId: number;
  /** undefined: the whole account; null: the account-level scope only; a number: that end-user. */
  endUserId?: number | null;
  agentId?: number;
  surface?: string;
  settledMeter?: string;
  since: Date;
  /** Exclusive. */
  until: Date;
}

function usageWhere(filter: UsageFilter): Prisma.Sql {
  const parts: Prisma.Sql[] = [
    Prisma.sql`account_id = ${filter.accountId}`,
    Prisma.sql`created_at >= ${filter.since}`,
    Prisma.sql`created_at < ${filter.until}`,
  ];
  if (filter.endUserId === null) parts.push(Prisma.sql`end_user_id IS NULL`);
  else if (filter.endUserId !== undefined) parts.push(Prisma.sql`end_user_id = ${filter.endUserId}`);
  if (filter.agentId !== undefined) parts.push(Prisma.sql`agent_id = ${filter.agentId}`);
  if (filter.surface !== undefined) parts.push(Prisma.sql`surface = ${filter.surface}`);
  if (filter.settledMeter !== undefined) parts.push(Prisma.sql`settled_meter = ${filter.settledMeter}`);
  return Prisma.join(parts, " AND ");
}

export interface UsageSums {
  inputTokens: bigint;
  outputTokens: bigint;
  cacheCreationTokens: bigint;
  cacheReadTokens: bigint;
  costMicros: bigint;
}

export interface UsageRow extends UsageSums {
  /** YYYY-MM-DD (UTC). */
  day: string;
  /** Set when grouped by model. */
  model: string | null;
}

/** Sums per UTC day (and per model when asked), days without usage left out. */
export function usageByDay(prisma: PrismaClient, filter: UsageFilter, byModel: boolean): Promise<UsageRow[]> {
  const model = byModel ? Prisma.sql`model` : Prisma.sql`NULL::text`;
  return prisma.$queryRaw<UsageRow[]>`
    SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, ${model} AS model,
           COALESCE(SUM(input_tokens), 0)::bigint AS "inputTokens", COALESCE(SUM(output_tokens), 0)::bigint AS "outputTokens",
           COALESCE(SUM(cache_creation_tokens), 0)::bigint AS "cacheCreationTokens",
           COALESCE(SUM(cache_read_tokens), 0)::bigint AS "cacheReadTokens", COALESCE(SUM(cost_micros), 0)::bigint AS "costMicros"
    FROM platform_usage_records WHERE ${usageWhere(filter)}
    GROUP BY 1, 2 ORDER BY 1, 2`;
}

/** Sums per end-user (null = the account-level scope) over the period. */
export async function usageByEndUser(
  prisma: PrismaClient,
  accountId: number,
  endUserIds: number[],
  since: Date,
  until: Date,
): Promise<Map<number, UsageSums>> {
  if (endUserIds.length === 0) return new Map();
  const rows = await prisma.platformUsageRecord.groupBy({
    by: ["endUserId"],
    where: { accountId, endUserId: { in: endUserIds }, createdAt: { gte: since, lt: until } },
    _sum: { inputTokens: true, outputTokens: true, cacheCreationTokens: true, cacheReadTokens: true, costMicros: true },
  });
  return new Map(
    rows.map((row) => [
      row.endUserId!,
      {
        inputTokens: BigInt(row._sum.inputTokens ?? 0),
        outputTokens: BigInt(row._sum.outputTokens ?? 0),
        cacheCreationTokens: BigInt(row._sum.cacheCreationTokens ?? 0),
        cacheReadTokens: BigInt(row._sum.cacheReadTokens ?? 0),
        costMicros: row._sum.costMicros ?? 0n,
      },
    ]),
  );
}

/** Completed runs per end-user whose run finished in the period. */
export async function completedRunsByEndUser(
  prisma: PrismaClient,
  accountId: number,
  endUserIds: number[],
  since: Date,
  until: Date,
): Promise<Map<number, number>> {
  if (endUserIds.length === 0) return new Map();
  const rows = await prisma.platformRun.groupBy({
    by: ["endUserId"],
    where: { accountId, endUserId: { in: endUserIds }, status: "completed", finishedAt: { gte: since, lt: until } },
    _count: { _all: true },
  });
  return new Map(rows.map((row) => [row.endUserId!, row._count._all]));
}

/** The account's completed runs in the period and its runs in progress now. */
export async function accountRunCounts(prisma: PrismaClient, accountId: number, since: Date, until: Date) {
  const [completed, active] = await Promise.all([
    prisma.platformRun.count({ where: { accountId, status: "completed", finishedAt: { gte: since, lt: until } } }),
    prisma.platformRun.count({ where: { accountId, status: { in: [...ACTIVE_STATUSES] } } }),
  ]);
  return { completed, active };
}

/** The account's end-user profiles, newest first, limit + 1 rows; `externalId` narrows to one. */
export const listEndUsersForUsage = (
  prisma: PrismaClient,
  accountId: number,
  page: { limit: number; startingAfter?: number; externalId?: string },
) =>
  prisma.platformEndUser.findMany({
    where: {
      accountId,
      ...(page.externalId !== undefined ? { externalId: page.externalId } : {}),
      ...(page.startingAfter !== undefined ? { id: { lt: page.startingAfter } } : {}),
    },
    orderBy: { id: "desc" },
    take: page.limit + 1,
    select: { id: true, externalId: true },
  });

export const findEndUserIdByExternalId = async (prisma: PrismaClient, accountId: number, externalId: string) =>
  (await prisma.platformEndUser.findUnique({ where: { accountId_externalId: { accountId, externalId } }, select: { id: true } }))
    ?.id ?? null;

/** What each of the account's runs in `runIds` was metered at over the period; runs with no usage left out. */
export async function costByRun(
  prisma: PrismaClient,
  accountId: number,
  runIds: number[],
  since: Date,
  until: Date,
): Promise<Map<number, bigint>> {
  if (runIds.length === 0) return new Map();
  const rows = await prisma.platformUsageRecord.groupBy({
    by: ["runId"],
    where: { accountId, runId: { in: runIds }, createdAt: { gte: since, lt: until } },
    _sum: { costMicros: true },
  });
  return new Map(rows.map((row) => [row.runId, row._sum.costMicros ?? 0n]));
}
