// A web process and a worker process on one PostgreSQL database (`npm run platform -- --role …`):
// the web one admits and serves, the worker claims and executes.
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createEmptyPostgresDatabase } from "../../helpers/database";
import { waitForRun } from "../../helpers/poll";
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
});
