// The one-statement fast path under a race only PostgreSQL's row locks can stage: the statement claims
// the Idempotency-Key (the account looked admissible) and then waits for the account's row, which
// another transaction changes so the hold is refused. The key's foreign key to the run that was never
// inserted must roll the whole statement back; the admission transaction then decides (402), and the
// key stays free.
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
      let waiting = false;
      for (let i = 0; i < 400 && !waiting; i++) {
        // Outside the locking transaction, whose view of pg_stat_activity would not change.
        const { rows } = await pool().query<{ count: string }>(
          "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
        );
        waiting = Number(rows[0]!.count) > 0;
        if (!waiting) await new Promise((resolve) => setTimeout(resolve, 25));
      }
      expect(waiting).toBe(true);
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
