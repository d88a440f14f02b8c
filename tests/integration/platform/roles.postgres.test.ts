// A web process and a worker process on one PostgreSQL database (`npm run platform -- --role …`):
// the web one admits and serves, the worker claims and executes. And one process in role all, whose
// standard runs execute on its worker thread (server/platform/runtime/worker-thread.ts).
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createEmptyPostgresDatabase } from "../../helpers/database";
import { pollFor, pollUntil, waitForRun } from "../../helpers/poll";
import { standaloneProcesses } from "../../helpers/standalone";

const { startStandalone, stopAll } = standaloneProcesses();
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  stopAll();
  await Promise.all(cleanups.map((cleanup) => cleanup()));
});

describe("npm run platform -- --role web|worker", () => {
  it("splits into a web process and a worker: the web one executes nothing, the worker says when it claims", async () => {
    const empty = await createEmptyPostgresDatabase();
    cleanups.push(empty.drop);
    const env = { DATABASE_URL: empty.url };
    const port = 4100 + Math.floor(Math.random() * 800);
    const web = await startStandalone(["--role", "web", "--port", String(port)], env);
    expect(web.first).toBe(`listening on http://127.0.0.1:${port}/api/v2`);
    const base = `http://127.0.0.1:${port}/api/v2`;
    const json = async (path: string, key: string | null, body?: unknown) => {
      const response = await fetch(`${base}${path}`, {
        method: body === undefined ? "GET" : "POST",
        headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return (await response.json()) as any;
    };
    const { api_key: key } = await json("/signup", null, { email: `split-${Date.now()}@example.test`, first_name: "Split", require_end_user_id: false });
    const agent = await json("/agents", key, { name: "Split" });
    const run = await json("/runs", key, { teammate_id: agent.id, message: "hello", stream: false, permission_mode: "autonomous" });
    // No worker yet: the run waits, handed to no process (a worker in the web process would have
    // taken it leased as it was inserted).
    expect((await json(`/runs/${run.id}`, key)).status).toBe("running");
    const database = new pg.Client({ connectionString: empty.url });
    await database.connect();
    try {
      const { rows } = await database.query("SELECT lease_owner, turns_used FROM platform_runs WHERE id = $1", [run.id]);
      expect(rows).toEqual([{ lease_owner: null, turns_used: 0 }]);
    } finally {
      await database.end();
    }

    const worker = await startStandalone(["--role", "worker"], env);
    expect(worker.first).toBe("worker ready");
    await waitForRun((id) => json(`/runs/${id}`, key), run.id, ["completed", "failed", "cancelled"]);
    expect(await json(`/runs/${run.id}`, key)).toMatchObject({ status: "completed", output: "Echo: hello" });
    for (const child of [web.child, worker.child]) {
      const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
    }
    // Two real processes, each started with tsx: the default 30 s is too short on a busy machine.
  }, 90_000);

  it("role all on PostgreSQL: standard runs execute on the worker thread, metadata_only ones on the main thread; one scrape counts both; SIGTERM hands the thread's runs back", async () => {
    const empty = await createEmptyPostgresDatabase();
    cleanups.push(empty.drop);
    const token = "metrics-token-of-this-test";
    const env = { DATABASE_URL: empty.url, LOG_LEVEL: "info", INLAY_METRICS_TOKEN: token };
    const port = 4100 + Math.floor(Math.random() * 800);
    const all = await startStandalone(["--port", String(port)], env);
    expect(all.first).toBe(`listening on http://127.0.0.1:${port}/api/v2`);
    const base = `http://127.0.0.1:${port}/api/v2`;
    const call = (path: string, key: string | null, body?: unknown, method = body === undefined ? "GET" : "POST") =>
      fetch(`${base}${path}`, {
        method,
        headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const json = async (path: string, key: string | null, body?: unknown, method?: string) => (await (await call(path, key, body, method)).json()) as any;
    const { api_key: key } = await json("/signup", null, { email: `thread-${Date.now()}@example.test`, first_name: "Thread", require_end_user_id: false });
    const agent = await json("/agents", key, { name: "Thread" });
    const passLine = (runId: number) => all.stderr().split("\n").find((line) => line.includes("run pass ended") && line.includes(`runId=${runId} `));

    const standard = await json("/runs", key, { teammate_id: agent.id, message: "hello", stream: false, permission_mode: "autonomous" });
    await waitForRun((id) => json(`/runs/${id}`, key), standard.id, ["completed", "failed", "cancelled"]);
    expect(await json(`/runs/${standard.id}`, key)).toMatchObject({ status: "completed", output: "Echo: hello" });
    // On the thread, with the admitting request's id, as a pass on the main thread has.
    expect(await pollFor(async () => passLine(standard.id), "the standard run's pass line")).toMatch(/thread=worker requestId=req_/);

    // metadata_only: the conversation lives in the main thread's memory, so its POST's stream shows the words.
    expect((await call("/settings", key, { retention_mode: "metadata_only" }, "PATCH")).status).toBe(200);
    const post = await call("/runs", key, { teammate_id: agent.id, message: "secret words", stream: true, permission_mode: "autonomous" });
    expect(post.headers.get("x-run-id")).toBe(String(standard.id + 1));
    const streamed = await post.text();
    expect(streamed).toContain("Echo: ");
    expect(streamed).toContain("secret");
    const privateLine = await pollFor(async () => passLine(standard.id + 1), "the metadata_only run's pass line");
    expect(privateLine).not.toContain("thread=worker");

    // One scrape: the main thread admitted both, each thread executed one.
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: `Bearer ${token}` } })).text();
    expect(metrics).toMatch(/^inlay_runs_admitted_total 2$/m);
    expect(metrics).toMatch(/^inlay_runs_claimed_total\{how="leased_at_admission"\} 2$/m);
    expect(metrics.match(/^inlay_process_cpu_user_seconds_total /gm)).toHaveLength(1);

    // A long run on the thread when SIGTERM comes: handed back (its lease let go), the process ends 0.
    expect((await call("/settings", key, { retention_mode: "standard" }, "PATCH")).status).toBe(200);
    const long = await json("/runs", key, { teammate_id: agent.id, message: "::delay 200\n::words 100", stream: false, permission_mode: "autonomous" });
    const database = new pg.Client({ connectionString: empty.url });
    await database.connect();
    try {
      const lease = async () => (await database.query("SELECT lease_owner, lease_expires_at < now() AS lapsed, status FROM platform_runs WHERE id = $1", [long.id])).rows[0];
      const words = async () => Number((await database.query("SELECT count(*) FROM platform_run_events WHERE run_id = $1 AND type = 'content_block_delta'", [long.id])).rows[0].count);
      await pollUntil(words, (count) => count > 0, "the long run's first words");
      expect(await lease()).toMatchObject({ lease_owner: expect.stringMatching(/^worker_/), lapsed: false });
      const exited = new Promise<number | null>((resolve) => all.child.once("exit", resolve));
      all.child.kill("SIGTERM");
      expect(await exited).toBe(0);
      // Handed back: its lease lapsed at once, for the next worker to resume it.
      expect(await lease()).toMatchObject({ lapsed: true, status: "running" });
      expect(all.stderr()).toMatch(new RegExp(`run pass ended {2}thread=worker .*runId=${long.id} .*handedBack=true`));
    } finally {
      await database.end();
    }
  }, 90_000);
});
