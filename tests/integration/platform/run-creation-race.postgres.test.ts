// Run creation under races only PostgreSQL's row locks can stage.
// - The one-statement fast path: the statement claims the Idempotency-Key (the account looked
//   admissible) and then waits for the account's row, which another transaction changes so the hold is
//   refused. The key's foreign key to the run that was never inserted must roll the whole statement
//   back; the admission transaction then decides (402), and the key stays free.
// - A refusal for a used-up balance is answered while the account's row is held by a writer of the
//   balance (an admission's hold or a run's settlement under load): it must not wait behind them.
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPlatform, type PlatformHarness } from "../../helpers/platform";

let platform: PlatformHarness;
beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(() => platform.close());

const prisma = () => platform.database.prisma;
const pool = () => (platform.database.driver as { kind: "postgres"; pool: pg.Pool }).pool;

/** Resolves once some session of the test database waits for a lock (or, with `stop`, once it is set). */
async function someoneWaitsForALock(stop: { done?: boolean } = {}): Promise<void> {
  while (!stop.done) {
    // Outside any locking transaction, whose view of pg_stat_activity would not change.
    const { rows } = await pool().query<{ count: string }>(
      "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
    );
    if (Number(rows[0]!.count) > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe("the fast path when the hold is refused after the key was claimed", () => {
  it("rolls back the claim, answers the transaction's 402, and leaves the key free for a retry", async () => {
    const account = await platform.signup();
    await prisma().platformAccount.update({ where: { id: account.id }, data: { emailVerifiedAt: new Date() } });
    const agentId = (await platform.call("/agents", { key: account.key, body: { name: "Racer", user_id: "u1" } })).body.id;
    const post = () =>
      platform.call("/runs", {
        key: account.key,
        query: { user_id: "u1" },
        body: { teammate_id: agentId, message: "race", stream: false },
        headers: { "idempotency-key": "race-1" },
      });

    const locker = await pool().connect();
    try {
      await locker.query("BEGIN");
      await locker.query("SELECT id FROM platform_accounts WHERE id = $1 FOR UPDATE", [account.id]);
      const posting = post();
      // Until the request's statement waits for the account's row (after its key claim).
      await someoneWaitsForALock();
      // The whole balance becomes reserved: the hold's WHERE clause, checked again on this row, refuses.
      await locker.query("UPDATE platform_accounts SET held_micros = balance_micros WHERE id = $1", [account.id]);
      await locker.query("COMMIT");
      const refused = await posting;
      expect(refused.status).toBe(402);
      expect(refused.body.error.error_code).toBe("TOKEN_BALANCE_DEPLETED");
    } finally {
      locker.release();
    }
    expect(await prisma().platformRun.count({ where: { accountId: account.id } })).toBe(0);
    expect(await prisma().platformIdempotencyKey.count({ where: { accountId: account.id } })).toBe(0);
    expect(await prisma().platformWebhookEvent.count({ where: { accountId: account.id } })).toBe(0);

    await prisma().platformAccount.update({ where: { id: account.id }, data: { heldMicros: 0n } });
    const retried = await post();
    expect(retried.status).toBe(200);
    expect(retried.headers.get("idempotent-replay")).toBeNull();
    expect((await prisma().platformIdempotencyKey.findFirstOrThrow({ where: { accountId: account.id } })).runId).toBe(retried.body.id);
  });
});

describe("a refusal for a used-up balance", () => {
  it.each<{ name: string; headers: Record<string, string> }>([
    { name: "without a key", headers: {} },
    { name: "with an Idempotency-Key", headers: { "idempotency-key": "refused-1" } },
  ])("is answered while a writer of the balance holds the account's row ($name)", async ({ headers }) => {
    const account = await platform.signup();
    await prisma().platformAccount.update({ where: { id: account.id }, data: { emailVerifiedAt: new Date(), balanceMicros: 0n } });
    const agentId = (await platform.call("/agents", { key: account.key, body: { name: "Broke", user_id: "u1" } })).body.id;

    const locker = await pool().connect();
    try {
      await locker.query("BEGIN");
      // The lock every writer of the balance takes (repositories/billing.ts).
      await locker.query("SELECT id FROM platform_accounts WHERE id = $1 FOR NO KEY UPDATE", [account.id]);
      const posting = platform.call("/runs", {
        key: account.key,
        query: { user_id: "u1" },
        body: { teammate_id: agentId, message: "refuse me", stream: false },
        headers,
      });
      const watching: { done?: boolean } = {};
      const first = await Promise.race([posting, someoneWaitsForALock(watching).then(() => "waited" as const)]);
      watching.done = true;
      if (first === "waited") throw new Error("the refusal waited for the account's row");
      expect(first.status).toBe(402);
      expect(first.body.error.error_code).toBe("TOKEN_BALANCE_DEPLETED");
      await locker.query("COMMIT");
    } finally {
      // A request left waiting must not outlive the test: its lock goes with the rollback.
      await locker.query("ROLLBACK").catch(() => undefined);
      locker.release();
    }
    expect(await prisma().platformRun.count({ where: { accountId: account.id } })).toBe(0);
  });
});
