// A run survives `kill -9` of the process executing it: `npm run platform` as a real child process on
// PostgreSQL, killed mid-run; the next process re-claims the run and completes it from its checkpoint.
// Short leases through the environment keep the first test quick; the second uses the shipped settings.
import type { ChildProcess } from "node:child_process";
import { pollUntil } from "../../helpers/poll";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEmptyPostgresDatabase } from "../../helpers/database";
import { readFrames, textOf } from "../../helpers/sse";
import { standaloneProcesses } from "../../helpers/standalone";

const { startStandalone, stopAll } = standaloneProcesses();
let database: Awaited<ReturnType<typeof createEmptyPostgresDatabase>>;
beforeAll(async () => {
  database = await createEmptyPostgresDatabase();
});
afterAll(async () => {
  stopAll();
  await database.drop();
});

const SHORT_LEASES = { RUN_LEASE_MS: "1500", RUN_SWEEP_GRACE_MS: "200", RUN_SWEEP_EVERY_MS: "200" };

async function startProcess(timings: Record<string, string> = SHORT_LEASES): Promise<{ child: ChildProcess; baseUrl: string }> {
  const { child, first } = await startStandalone(["--port", "0"], { DATABASE_URL: database.url, ...timings });
  return { child, baseUrl: first.replace(/^listening on /, "") };
}

async function kill(child: ChildProcess) {
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGKILL");
  await exited;
}

async function sql<T extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

async function call(baseUrl: string, path: string, key: string | null, body?: unknown) {
  const response = await fetch(`${baseUrl}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

describe("a run whose process is killed", () => {
  it("is re-claimed by the next process and completes, its log without repeats", async () => {
    const first = await startProcess();
    const signup = await call(first.baseUrl, "/signup", null, {
      email: `crash-${Date.now()}@example.test`,
      first_name: "Crash",
      password: "correct-horse",
      require_end_user_id: false,
    });
    expect(signup.status).toBe(201);
    const key: string = signup.body.api_key;
    const agent = await call(first.baseUrl, "/agents", key, { name: "Survivor" });
    const message = '::tool calculator {"expression":"6*7"}\n::delay 40\n::words 80';
    const created = await call(first.baseUrl, "/runs", key, { teammate_id: agent.body.id, message, stream: false, permission_mode: "autonomous" });
    expect(created.status).toBe(200);
    const runId: number = created.body.id;

    // Kill it in the middle of the answer, after the tool step.
    const seen = await readFrames(await fetch(`${first.baseUrl}/runs/${runId}/events`, { headers: { authorization: `Bearer ${key}` } }), {
      until: (frame) => frame.data.type === "content_block_delta" && frame.data.delta.text.startsWith("kilo"),
    });
    expect(seen.some((frame) => frame.data.type === "tool_result")).toBe(true);
    await kill(first.child);
    expect((await fetch(`${first.baseUrl}/openapi.json`).catch(() => null))?.status).toBeUndefined();

    const second = await startProcess();
    const run = await pollUntil(
      async () => (await call(second.baseUrl, `/runs/${runId}`, key)).body,
      (read) => read.status !== "running",
      `run ${runId} to end on the second process`,
    );
    expect(run).toMatchObject({ status: "completed", turns_used: 2 });
    expect(run.output).toMatch(/^Tool calculator returned \{"result":42\}\nalpha bravo .* papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu alpha bravo$/);
    expect(run.metadata).toBeNull();

    const log = await readFrames(await fetch(`${second.baseUrl}/runs/${runId}/events`, { headers: { authorization: `Bearer ${key}` } }), {
      until: (frame) => frame.data.type === "done",
    });
    expect(log.filter((frame) => frame.data.type === "tool_use")).toHaveLength(1);
    expect(log.filter((frame) => frame.data.type === "tool_result")).toHaveLength(1);
    expect(log.filter((frame) => frame.data.resumed)).toEqual([
      expect.objectContaining({ data: { type: "run_status", status: "running", resumed: true, attempt: 1, discard_after: expect.any(String), at: expect.any(String) } }),
    ]);
    expect(textOf(log)).toBe(run.output);
    expect(log.at(-1)!.data).toMatchObject({ type: "done", completion_state: "completed" });
    // Two processes start, each loading the platform with tsx: past 30 s on a busy machine.
  }, 120_000);
});

describe("the runs of a killed process, at the shipped settings", () => {
  it("are all re-claimed by the next process and complete: every word once, every run charged once", async () => {
    const first = await startProcess({});
    const signup = await call(first.baseUrl, "/signup", null, {
      email: `crash-many-${Date.now()}@example.test`,
      first_name: "Crash",
      password: "correct-horse",
      require_end_user_id: false,
    });
    const key: string = signup.body.api_key;
    const accountId: number = signup.body.account.id;
    // Verified: an unverified account may run 25 runs.
    await sql("UPDATE platform_accounts SET email_verified_at = now() WHERE id = $1", [accountId]);
    const [before] = await sql<{ balance: string }>("SELECT balance_micros::text AS balance FROM platform_accounts WHERE id = $1", [accountId]);
    const agent = await call(first.baseUrl, "/agents", key, { name: "Survivor" });

    const RUNS = 50;
    const WORDS = 100;
    // Created together, so that on a busy machine too they are all still going when the process dies.
    const created = await Promise.all(
      Array.from({ length: RUNS }, () => call(first.baseUrl, "/runs", key, { teammate_id: agent.body.id, message: `::delay 100\n::words ${WORDS}`, stream: false })),
    );
    expect(created.map((each) => each.status)).toEqual(Array(RUNS).fill(200));
    const runIds: number[] = created.map((each) => each.body.id);
    // Every run has said something when the process dies.
    await Promise.all(
      runIds.map(async (runId) =>
        readFrames(await fetch(`${first.baseUrl}/runs/${runId}/events`, { headers: { authorization: `Bearer ${key}` } }), {
          until: (frame) => frame.data.type === "content_block_delta",
        }),
      ),
    );
    await kill(first.child);
    // A run the dead process finished before it died (a slow machine creates the fifty slowly) has
    // nothing to resume: the ones cut off are those it left running.
    const cutOff = new Set(
      (await sql<{ id: number }>("SELECT id FROM platform_runs WHERE account_id = $1 AND status = 'running'", [accountId])).map((row) => Number(row.id)),
    );
    expect(cutOff.size).toBeGreaterThan(RUNS / 2);

    // The next process, with nothing set: it finds the lapsed leases on its own.
    const second = await startProcess({});
    const unfinished = async () =>
      Number((await sql<{ count: string }>("SELECT count(*) FROM platform_runs WHERE account_id = $1 AND status = 'running'", [accountId]))[0]!.count);
    await expect.poll(unfinished, { timeout: 90_000, interval: 500 }).toBe(0);

    const timesResumed: number[] = [];
    for (const runId of runIds) {
      const run = (await call(second.baseUrl, `/runs/${runId}`, key)).body;
      expect(run).toMatchObject({ status: "completed" });
      expect(run.output.trim().split(/\s+/)).toHaveLength(WORDS);
      const log = await readFrames(await fetch(`${second.baseUrl}/runs/${runId}/events`, { headers: { authorization: `Bearer ${key}` } }), {
        until: (frame) => frame.data.type === "done",
      });
      // A run cut off is resumed; one whose lease the busy new process let lapse is resumed again,
      // and keeps each notice (what was said stays and is continued: runtime/partial-turn.ts).
      const resumes = log.filter((frame) => frame.data.resumed).length;
      if (cutOff.has(runId)) expect(resumes).toBeGreaterThanOrEqual(1);
      else expect(resumes).toBe(0);
      timesResumed.push(resumes);
      expect(textOf(log)).toBe(run.output);
      expect(log.filter((frame) => frame.data.type === "done")).toHaveLength(1);
    }
    // Charged once: the balance fell by exactly what the runs cost, and nothing stays held.
    const [account] = await sql<{ balance: string; held: string }>(
      "SELECT balance_micros::text AS balance, held_micros::text AS held FROM platform_accounts WHERE id = $1",
      [accountId],
    );
    const [costs] = await sql<{ cost: string; settled: string }>(
      "SELECT sum(cost_micros)::text AS cost, sum(settled_micros)::text AS settled FROM platform_runs WHERE account_id = $1",
      [accountId],
    );
    expect(BigInt(costs!.cost)).toBeGreaterThan(0n);
    expect(costs!.settled).toBe(costs!.cost);
    expect(account!.held).toBe("0");
    expect(BigInt(before!.balance) - BigInt(account!.balance)).toBe(BigInt(costs!.cost));
    console.info(`killed process: ${cutOff.size} runs cut off; resumed more than once: ${timesResumed.filter((n) => n > 1).length}`);
  }, 180_000);
});
