// A burst of concurrent runs on one account (every tenant and end-user of a vendor shares one platform
// account): each POST /runs is answered 200, every run streams to its `done`, and the money adds up.
// The pool is kept small on purpose, so the burst queues for connections the way 1,000 runs queue for
// 20: with Prisma's default transaction wait (2 s) that queue turned into 500s and crashed runs (P2028).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../helpers/database";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";
import { readFrames, textOf } from "../../helpers/sse";

const RUNS = 200;
const HOLD = 1_000;

let database: TestDatabase;
let platform: PlatformHarness;
let account: Account;
let agentId: number;

beforeAll(async () => {
  database = await createTestDatabase({ poolMax: 3 });
  platform = await startPlatform({ database, billing: { signupCreditMicros: 1_000_000_000, runHoldMicros: HOLD } });
  account = await platform.signup({ require_end_user_id: false });
  // A vendor's account: verified, so the unverified-email cap (25 runs) does not apply.
  await database.prisma.platformAccount.update({ where: { id: account.id }, data: { emailVerifiedAt: new Date() } });
  agentId = (await platform.call("/agents", { key: account.key, body: { name: "Load", default_permission_mode: "autonomous" } })).body.id;
}, 60_000);
afterAll(async () => {
  await platform.close();
  await database.dispose();
});

describe(`${RUNS} concurrent POST /runs on one account`, () => {
  it("answers every one 200 and streams every run to its done; holds all come back", async () => {
    const results = await Promise.all(
      Array.from({ length: RUNS }, async (_, index) => {
        const response = await platform.request("/runs", {
          method: "POST",
          headers: { authorization: `Bearer ${account.key}`, "content-type": "application/json" },
          body: JSON.stringify({ teammate_id: agentId, message: `::words 20\nrun ${index}` }),
        });
        if (response.status !== 200) return { status: response.status, body: await response.text(), text: "", done: undefined };
        const frames = await readFrames(response, { until: (frame) => frame.data.type === "done" });
        return { status: 200, body: "", text: textOf(frames), done: frames.at(-1)?.data };
      }),
    );
    const failures = results.filter((result) => result.status !== 200);
    expect(failures.map((failure) => `${failure.status} ${failure.body}`)).toEqual([]);
    for (const result of results) {
      expect(result.done).toMatchObject({ type: "done", completion_state: "completed" });
      expect(result.text.trim().split(/\s+/)).toHaveLength(20);
    }

    // Every run settled: nothing is held any more, and the ledger has one debit per run.
    await (await platform.runtime()).worker!.idle();
    const balance = await platform.call("/billing/balance", { key: account.key });
    expect(balance.body.held_micros).toBe(0);
    const debits = await database.prisma.platformBalanceTransaction.count({ where: { accountId: account.id, type: "debit" } });
    expect(debits).toBe(RUNS);
  }, 240_000);
});
