// A run's settlement within its hold is applied to the account as the transaction that ends the pass
// commits (a deferred trigger, migration deferred_settlements): the account's row, which every
// admission of the account updates, is not locked while that transaction waits for its client's next
// statement. Only PostgreSQL's concurrent connections can show a lock that is or is not held.
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Tx } from "@/server/platform/repositories/db";
import { settleRunChargesIn } from "@/server/platform/repositories/billing";
import { startPlatform, type PlatformHarness } from "../../helpers/platform";

let platform: PlatformHarness;
beforeAll(async () => {
  // web: nothing executes, so a created run stays running with its hold until the test settles it.
  platform = await startPlatform({ role: "web" });
});
afterAll(() => platform.close());

const pool = () => (platform.database.driver as { kind: "postgres"; pool: pg.Pool }).pool;

async function runWithCost(cost: number) {
  const account = await platform.signup({ require_end_user_id: false });
  await pool().query("UPDATE platform_accounts SET email_verified_at = now() WHERE id = $1", [account.id]);
  const agentId = (await platform.call("/agents", { key: account.key, body: { name: "Settled" } })).body.id;
  const created = await platform.call("/runs", { key: account.key, body: { teammate_id: agentId, message: "hi", stream: false } });
  expect(created.status).toBe(200);
  const runId = created.body.id as number;
  await pool().query("UPDATE platform_runs SET cost_micros = $2, status = 'completed' WHERE id = $1", [runId, cost]);
  return { accountId: account.id, runId };
}

const accountRow = async (accountId: number) =>
  (await pool().query<{ balance: string; held: string }>("SELECT balance_micros AS balance, held_micros AS held FROM platform_accounts WHERE id = $1", [accountId]))
    .rows[0]!;
const debitsOf = async (runId: number) =>
  (await pool().query<{ amount: string; after: string; description: string }>(
    "SELECT amount_micros AS amount, balance_after_micros AS after, description FROM platform_balance_transactions WHERE run_id = $1",
    [runId],
  )).rows;

const settleIn = (tx: Tx, runId: number) => settleRunChargesIn(tx, runId, () => true, (run) => `Run ${run.id} on ${run.model}`);

describe("settlement within the run's hold", () => {
  it("leaves the account's row unlocked until the commit, then moves the balance and writes the debit", async () => {
    const { accountId, runId } = await runWithCost(12_345);
    const before = await accountRow(accountId);
    expect(Number(before.held)).toBeGreaterThan(12_345);

    await platform.database.prisma.$transaction(async (tx) => {
      expect(await settleIn(tx as unknown as Tx, runId)).toMatchObject({ chargedMicros: 12_345n, writtenOffMicros: 0n });
      // Another connection updates the account's row (as an admission's hold does) while this
      // transaction is still open: it must not wait for it.
      const other = await pool().connect();
      try {
        await other.query("SET lock_timeout = '2s'");
        await other.query("UPDATE platform_accounts SET held_micros = held_micros WHERE id = $1", [accountId]);
      } finally {
        other.release();
      }
      // Nothing of the settlement is visible before the commit.
      expect(await accountRow(accountId)).toEqual(before);
    });

    const after = await accountRow(accountId);
    expect(BigInt(after.balance)).toBe(BigInt(before.balance) - 12_345n);
    expect(after.held).toBe("0");
    expect(await debitsOf(runId)).toEqual([{ amount: "-12345", after: after.balance, description: `Run ${runId} on inlay/sim` }]);
    expect((await pool().query("SELECT count(*)::int AS n FROM platform_pending_settlements")).rows[0].n).toBe(0);
  });

  it("applies nothing when the transaction rolls back", async () => {
    const { accountId, runId } = await runWithCost(7_000);
    const before = await accountRow(accountId);
    await expect(
      platform.database.prisma.$transaction(async (tx) => {
        await settleIn(tx as unknown as Tx, runId);
        throw new Error("the pass end failed after settling");
      }),
    ).rejects.toThrow("the pass end failed after settling");
    expect(await accountRow(accountId)).toEqual(before);
    expect(await debitsOf(runId)).toEqual([]);
    const run = (await pool().query("SELECT settled_micros::int AS settled FROM platform_runs WHERE id = $1", [runId])).rows[0];
    expect(run.settled).toBe(0);
  });

  it("keeps the ledger's balance_after exact when many runs of one account settle at once", async () => {
    const account = await platform.signup({ require_end_user_id: false });
    await pool().query("UPDATE platform_accounts SET email_verified_at = now() WHERE id = $1", [account.id]);
    const agentId = (await platform.call("/agents", { key: account.key, body: { name: "Many" } })).body.id;
    const runIds: number[] = [];
    for (let index = 0; index < 12; index++) {
      const created = await platform.call("/runs", { key: account.key, body: { teammate_id: agentId, message: `run ${index}`, stream: false } });
      expect(created.status).toBe(200);
      runIds.push(created.body.id);
    }
    await pool().query("UPDATE platform_runs SET cost_micros = 1000 + id % 7, status = 'completed' WHERE id = ANY($1)", [runIds]);
    const start = BigInt((await accountRow(account.id)).balance);
    await Promise.all(runIds.map((runId) => platform.database.prisma.$transaction((tx) => settleIn(tx as unknown as Tx, runId))));

    const ledger = (
      await pool().query<{ amount: string; after: string }>(
        "SELECT amount_micros AS amount, balance_after_micros AS after FROM platform_balance_transactions WHERE account_id = $1 AND type = 'debit' ORDER BY id",
        [account.id],
      )
    ).rows;
    expect(ledger).toHaveLength(12);
    let running = start;
    for (const entry of ledger) {
      running += BigInt(entry.amount);
      expect(BigInt(entry.after)).toBe(running);
    }
    expect(await accountRow(account.id)).toEqual({ balance: String(running), held: "0" });
  });
});
