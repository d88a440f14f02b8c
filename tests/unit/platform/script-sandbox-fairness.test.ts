// The script sandbox shared fairly (docs/design.md, Operations), by account first and by end-user within
// the account: one account's runaway scripts, however many of its end-users they come from, hold at most
// the account's share of the interpreters and of the queue; other accounts' calls run beside them, and a
// runaway call is interrupted, its interpreter kept warm.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createScriptSandbox, type PooledScriptSandbox, sandboxScope } from "@/server/platform/tool-servers/script-sandbox";

let sandbox: PooledScriptSandbox;
const TIMEOUT_MS = 1_500;

beforeAll(async () => {
  // The interrupt's grace is long: on a loaded host a warm interpreter can take seconds to act on it,
  // and "kept warm" must not depend on the CPU (as in script-sandbox.test.ts). Shares of two interpreters
  // and a queue of 8: an account runs 1 call and queues 2, one of its end-users (or its own calls) 1 and 1.
  sandbox = createScriptSandbox({ poolSize: 2, timeoutMs: TIMEOUT_MS, memoryMb: 96, maxQueue: 8, interruptGraceMs: 12_000, outbound: { allowLoopback: true, allowHttp: true } });
  // Both interpreters warm before the race below.
  await sandbox.check("def tool():\n    pass", ["tool"]);
  await vi.waitFor(() => expect(sandbox.stats().idle).toBe(2), { timeout: 60_000, interval: 100 });
  // Two Pyodide interpreters start beside CI's production build: past the default 10 s hook timeout.
}, 90_000);
afterAll(() => sandbox?.close());

const runaway = "def tool():\n    while True:\n        pass";
const trivial = "def tool(x):\n    return x + 1";
const A = sandboxScope(1, null);
const B = sandboxScope(2, null);
const timedOut = { ok: false, error: `TimeoutError: the script ran longer than ${TIMEOUT_MS} ms` };

describe("script sandbox: fair sharing", { timeout: 120_000 }, () => {
  it("leaves another account's calls unaffected by one account's runaway scripts", async () => {
    const { interpreterStarts, retired } = sandbox.stats();
    const order: string[] = [];
    const a = Array.from({ length: 8 }, (_, i) =>
      sandbox.call({ source: runaway, tool: "tool", args: {}, allowedOrigins: [], scope: A }).then((outcome) => {
        order.push(`a${i}`);
        return outcome;
      }),
    );
    const b = await sandbox.call({ source: trivial, tool: "tool", args: { x: 41 }, allowedOrigins: [], scope: B }).then((outcome) => {
      order.push("b");
      return outcome;
    });
    // B ran at once on the interpreter A may not take, before any of A's calls ended: the first six
    // answers are A's refusals (past its queue), then B's.
    expect(b).toEqual({ ok: true, result: 42 });
    expect(order.indexOf("b")).toBe(6);

    const outcomes = await Promise.all(a);
    const busy = "RuntimeError: the script sandbox is busy with this account's own calls (1 running, 1 waiting); try again shortly";
    // One running and one waiting: the other six were refused at once.
    expect(outcomes.slice(2)).toEqual(Array.from({ length: 6 }, () => ({ ok: false, error: busy })));
    expect(outcomes.slice(0, 2)).toEqual([timedOut, timedOut]);
    // Each was interrupted, none reloaded an interpreter.
    // The cause first: it names what replaced an interpreter when this fails.
    expect(sandbox.stats().retired).toEqual(retired);
    expect(sandbox.stats().interpreterStarts).toBe(interpreterStarts);
  });

  it("runs an account's end-users on the account's share, one after the other, while another account's call runs beside them", async () => {
    // Both interpreters free before the race (the calls above may still be letting one go).
    await vi.waitFor(() => expect(sandbox.stats().idle).toBe(2), { timeout: 60_000, interval: 100 });
    const timed = "import time\ndef tool(tag):\n    start = time.time()\n    time.sleep(0.5)\n    return [tag, start, time.time()]";
    const calls = [
      { tag: "a1", scope: A },
      { tag: "u1", scope: sandboxScope(1, 7) },
      { tag: "b1", scope: B },
    ].map(({ tag, scope }) => sandbox.call({ source: timed, tool: "tool", args: { tag }, allowedOrigins: [], scope }));
    // [tag, started, ended], in seconds of the one clock every interpreter reads.
    const [a1, u1, b1] = (await Promise.all(calls)).map((outcome) => {
      if (!outcome.ok) throw new Error(outcome.error);
      return outcome.result as [string, number, number];
    });
    expect([a1![0], u1![0], b1![0]]).toEqual(["a1", "u1", "b1"]);
    // Account 1's end-user waited for the account's own call: one interpreter for the account.
    expect(u1![1]).toBeGreaterThanOrEqual(a1![2]);
    // Account 2's call did not wait for either.
    expect(b1![1]).toBeLessThan(a1![2]);
  });

  it("gives another account a slot at once while one account saturates its share through several end-users", async () => {
    await vi.waitFor(() => expect(sandbox.stats().idle).toBe(2), { timeout: 60_000, interval: 100 });
    const order: string[] = [];
    // Account 1's runaway scripts, two under each of four end-users.
    const flood = [1, 2, 3, 4].flatMap((user) =>
      [1, 2].map((n) =>
        sandbox.call({ source: runaway, tool: "tool", args: {}, allowedOrigins: [], scope: sandboxScope(1, user) }).then((outcome) => {
          order.push(`u${user}.${n}`);
          return outcome;
        }),
      ),
    );
    // Account 2's trivial call, and the check its script's creation runs, both get the other interpreter.
    const b = await sandbox.call({ source: trivial, tool: "tool", args: { x: 41 }, allowedOrigins: [], scope: B });
    expect(b).toEqual({ ok: true, result: 42 });
    expect(await sandbox.check(trivial, ["tool"], B)).toEqual({ ok: true });
    // All this while account 1's first call still runs: nothing of account 1 has ended but its refusals.
    expect(sandbox.stats()).toMatchObject({ busy: 1, queued: 2 });
    expect(order.sort()).toEqual(["u2.2", "u3.1", "u3.2", "u4.1", "u4.2"]);
    // The refusals: an end-user past their own queue, then the account past its queue, whoever asks.
    const refused = await Promise.all([flood[3]!, flood[4]!, flood[7]!]);
    expect(refused.map((outcome) => (outcome.ok ? "ran" : outcome.error))).toEqual([
      "RuntimeError: the script sandbox is busy with this end-user's calls (1 running, 1 waiting); try again shortly",
      "RuntimeError: the script sandbox is busy with this account's calls (1 running, 2 waiting); try again shortly",
      "RuntimeError: the script sandbox is busy with this account's calls (1 running, 2 waiting); try again shortly",
    ]);
    // Account 1's three admitted runaways each run out their time (closing the sandbox would cut them).
    expect(await Promise.all(flood.slice(0, 3))).toEqual([timedOut, timedOut, timedOut]);
  });
});
