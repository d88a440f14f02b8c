// Money: the prepaid balance and its ledger, the holds runs place on it, metered model calls, the
// end-user turns the rate cap counts, and the aggregates /usage reports. The design (hold at
// admission, settle as the run goes, never below zero) is in docs/platform-api.md, "Money".
import type { PrismaClient } from "@/server/generated/prisma/client";
import { Prisma } from "@/server/generated/prisma/client";
import { execute, queryRows } from "./direct";

type Tx = PrismaClient;

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
export async function addLedgerEntry(prisma: PrismaClient, accountId: number, entry: LedgerEntry): Promise<bigint | null> {
  return prisma.$transaction(async (tx) => {
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
  });
}

export const findBalance = (prisma: PrismaClient, accountId: number) =>
  prisma.platformAccount.findUnique({ where: { id: accountId }, select: { balanceMicros: true, heldMicros: true } });

/** The newest ledger entries first. */
export const listLedger = (prisma: PrismaClient, accountId: number, take: number) =>
  prisma.platformBalanceTransaction.findMany({ where: { accountId }, orderBy: { id: "desc" }, take });

// ---------------------------------------------------------------------------------------------
// Admission: one transaction per run start. The hold is a conditional UPDATE of the account's row,
// which serialises admissions only for the moment it takes; what must be decided one at a time beyond
// it (an unverified account's run count, an end-user's caps) locks its own row (services/run-admission.ts).

export interface AdmissionAccount {
  balanceMicros: bigint;
  heldMicros: bigint;
  emailVerifiedAt: Date | null;
  perEndUserRunLimit: number | null;
  perEndUserCostLimitCents: number | null;
  perEndUserRatePerMinute: number | null;
  /** The account's retention_mode: what a run started now stores (read here, not in a separate query). */
  retentionMode: string;
}

const readAdmissionAccount = async (tx: Tx, accountId: number, lock: boolean): Promise<AdmissionAccount> => {
  // NO KEY UPDATE, as every writer of the balance takes: it excludes them all, yet not the KEY SHARE
  // locks of inserts that reference the account (see settlementSql on the deadlock FOR UPDATE risks).
  const forUpdate = lock ? Prisma.sql`FOR NO KEY UPDATE` : Prisma.empty;
  const rows = await tx.$queryRaw<AdmissionAccount[]>`
    SELECT balance_micros AS "balanceMicros", held_micros AS "heldMicros", email_verified_at AS "emailVerifiedAt",
           per_end_user_run_limit AS "perEndUserRunLimit", per_end_user_cost_limit_cents AS "perEndUserCostLimitCents",
           per_end_user_rate_per_minute AS "perEndUserRatePerMinute", retention_mode AS "retentionMode"
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

const ACTIVE = ["running", "awaiting_approval", "paused"];

/** Runs of the account that completed or are still in progress (what the unverified-email cap counts). */
export const countLiveOrCompletedRuns = (tx: Tx, accountId: number) =>
  tx.platformRun.count({ where: { accountId, status: { in: ["completed", ...ACTIVE] } } });

/** An end-user's runs that completed since `since`, plus those in progress (which count against its cap). */
export const countEndUserRuns = (tx: Tx, accountId: number, endUserId: number, since: Date) =>
  tx.platformRun.count({
    where: {
      accountId,
      endUserId,
      OR: [{ status: "completed", finishedAt: { gte: since } }, { status: { in: ACTIVE } }],
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
}

/** One model call: its usage row and the run's running totals, together (one statement, so atomic). */
export async function recordModelCall(prisma: PrismaClient, call: MeteredCall): Promise<void> {
  await execute(prisma, Prisma.sql`
    WITH usage AS (
      INSERT INTO platform_usage_records (account_id, end_user_id, run_id, agent_id, model, surface, settled_meter,
        input_tokens, output_tokens, cache_creation_tokens, cache_read_tokens, cost_micros)
      VALUES (${call.accountId}, ${call.endUserId}, ${call.runId}, ${call.agentId}, ${call.model}, ${call.surface}, 'wallet',
        ${call.inputTokens}, ${call.outputTokens}, ${call.cacheCreationTokens}, ${call.cacheReadTokens}, ${call.costMicros})
    )
    UPDATE platform_runs
    SET input_tokens = input_tokens + ${call.inputTokens}, output_tokens = output_tokens + ${call.outputTokens},
        cost_micros = cost_micros + ${call.costMicros}, updated_at = now()
    WHERE id = ${call.runId}`);
}

export interface Settlement {
  /** Debited from the balance. */
  chargedMicros: bigint;
  /** Metered but not charged: the balance could not cover it. */
  writtenOffMicros: bigint;
  /** Hold given back to the balance (the run ended). */
  releasedMicros: bigint;
  balanceAfterMicros: bigint;
}

/**
 * Charges what the run has cost since it was last settled: first out of its own hold, then, if the
 * estimate fell short, out of what nobody holds, never more; the rest is written off, so the balance
 * never goes below what other runs hold (nor below zero). A run that ended (its status one of
 * `endingStatuses`) gives back what is left of its hold. One statement: the run's row is locked
 * first, so two settlements of one run (the executor's and a cancel's) never charge the same cost
 * twice; null when there was nothing to settle.
 */
export async function settleRunCharges(prisma: PrismaClient, runId: number, endingStatuses: readonly string[]): Promise<Settlement | null> {
  const settlement = settlementSql({ gate: null });
  const rows = await queryRows<Settlement>(
    prisma,
    Prisma.sql`
      WITH run_before AS (
        SELECT id, account_id, model, cost_micros AS cost, settled_micros AS settled, hold_micros AS hold,
          status = ANY(${[...endingStatuses]}::text[]) AS ending
        FROM platform_runs WHERE id = ${runId} FOR NO KEY UPDATE
      ),
      ${settlement.plan},
      settled_run AS (
        UPDATE platform_runs run SET settled_micros = plan.cost, hold_micros = plan.hold_after
        FROM plan WHERE run.id = plan.id AND ${settlement.due}
      ),
      ${settlement.charge}
      SELECT charged AS "chargedMicros", written_off AS "writtenOffMicros", released AS "releasedMicros", balance_after AS "balanceAfterMicros"
      FROM charged_account`,
  );
  return rows[0] ?? null;
}

/**
 * Settlement as SQL, one definition for every statement that settles (this file's settleRunCharges,
 * run-end.ts's end of a pass): CTEs over `run_before`, which the statement defines with columns
 * id, account_id, model, cost, settled, hold and ending (whether the run has ended).
 * - `plan`: run_before with what is due (cost since the last settlement), what comes out of the
 *   run's hold (`from_hold`), what the hold gives back (`released`, once ended) and the hold after
 *   (`hold_after`); the statement writes the run's side (settled_micros = cost, hold_micros =
 *   hold_after) where `due` (the condition) holds.
 * - `charge`: the account's row locked FOR NO KEY UPDATE and read at its newest, the charge, the
 *   ledger entry and the account's new balance and held amount; `charged_account` returns what moved.
 *   With `gate`, only when that CTE (the run's move) returned a row.
 *
 * Both rows are locked FOR NO KEY UPDATE: exclusive against every other writer of the balance and of
 * the run (settlements, admissions' holds, ledger entries all take at least that), but not against the
 * KEY SHARE locks that inserts referencing them take: a statement that inserts such rows (a webhook
 * event references the account) would otherwise wait for every other doing the same, and two would
 * deadlock. Run event inserts (which reference the run) never wait for a settlement either.
 */
export function settlementSql({ gate }: { gate: string | null }): { plan: Prisma.Sql; due: Prisma.Sql; charge: Prisma.Sql } {
  const due = Prisma.sql`(plan.due > 0 OR (plan.ending AND plan.hold > 0))`;
  return {
    plan: Prisma.sql`plan AS (
      SELECT run_before.*, run_before.cost - run_before.settled AS due,
        LEAST(run_before.cost - run_before.settled, run_before.hold) AS from_hold,
        CASE WHEN run_before.ending THEN run_before.hold - LEAST(run_before.cost - run_before.settled, run_before.hold) ELSE 0 END AS released,
        CASE WHEN run_before.ending THEN 0 ELSE run_before.hold - LEAST(run_before.cost - run_before.settled, run_before.hold) END AS hold_after
      FROM run_before
    )`,
    due,
    charge: Prisma.sql`funds AS (
      SELECT plan.*, account.balance_micros AS balance, account.held_micros AS held
      FROM plan JOIN platform_accounts account ON account.id = plan.account_id
        ${gate === null ? Prisma.empty : Prisma.raw(`JOIN ${gate} ON ${gate}.id = plan.id`)}
      WHERE ${due}
      FOR NO KEY UPDATE OF account
    ),
    charge AS (
      -- Beyond the hold, only what nobody holds, never below zero.
      SELECT funds.*, funds.from_hold + LEAST(funds.due - funds.from_hold, GREATEST(funds.balance - funds.held, 0)) AS charged
      FROM funds
    ),
    ledger AS (
      INSERT INTO platform_balance_transactions (account_id, type, amount_micros, balance_after_micros, run_id, description, created_at)
      SELECT account_id, 'debit', -charged, balance - charged, id,
        'Run ' || id || ' on ' || model || CASE WHEN due > charged
          THEN ' (' || ((due - charged) / 1000000)::text || '.' || lpad(((due - charged) % 1000000)::text, 6, '0')
            || ' USD not charged: the balance could not cover it)'
          ELSE '' END,
        now()
      FROM charge WHERE due > 0
    ),
    charged_account AS (
      UPDATE platform_accounts account
      SET balance_micros = charge.balance - charge.charged, held_micros = account.held_micros - charge.from_hold - charge.released, updated_at = now()
      FROM charge WHERE account.id = charge.account_id
      RETURNING charge.charged, charge.due - charge.charged AS written_off, charge.released, account.balance_micros AS balance_after
    )`,
  };
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
    prisma.platformRun.count({ where: { accountId, status: { in: ACTIVE } } }),
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
