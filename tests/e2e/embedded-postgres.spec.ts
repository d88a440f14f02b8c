// The app with its embedded platform on PostgreSQL (`next start` with DATABASE_URL, role all): the
// platform's standard runs execute on the worker thread of the compiled build (dist/platform/worker-thread.js,
// server/framework/embedded-platform.ts), and SIGTERM still ends the process cleanly.
import { randomBytes } from "node:crypto";
import { spawn } from "node:child_process";
import { expect, test } from "@playwright/test";
import pg from "pg";

// eslint-disable-next-line no-restricted-properties -- the test's own PostgreSQL server (CI sets it; this machine kind runs one)
const SERVER = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

async function onServer(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: SERVER });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

test("on PostgreSQL the embedded platform executes its runs on its worker thread", async () => {
  test.setTimeout(120_000);
  const name = `inlay_e2e_thread_${randomBytes(4).toString("hex")}`;
  await onServer(`CREATE DATABASE "${name}"`);
  const url = new URL(SERVER);
  url.pathname = `/${name}`;
  const port = test.info().config.metadata.sparePort as number;
  const server = spawn(process.execPath, ["node_modules/next/dist/bin/next", "start", "--port", String(port)], {
    env: {
      // eslint-disable-next-line no-restricted-properties -- the child inherits the runner's environment
      ...process.env,
      NEXT_TELEMETRY_DISABLED: "1",
      NEXT_MANUAL_SIG_HANDLE: "1",
      NEXTAUTH_SECRET: "e2e-only-secret",
      DATABASE_URL: url.toString(),
      LOG_LEVEL: "info",
      SEED_DEMO_DATA: "false",
      // A platform account of its own through the embedded /api/v2, with credit for a run.
      INLAY_SIGNUP: "open",
      PLATFORM_SIGNUP_CREDIT_MICROS: "1000000",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  server.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  server.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => server.once("exit", resolve));
  try {
    const base = `http://127.0.0.1:${port}`;
    await expect.poll(async () => (await fetch(`${base}/readyz`).catch(() => undefined))?.status, { timeout: 60_000 }).toBe(200);
    const post = async (path: string, body: unknown, key?: string) => {
      const response = await fetch(`${base}/api/v2${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}) },
        body: JSON.stringify(body),
      });
      return (await response.json()) as Record<string, any>;
    };
    const { api_key: key } = await post("/signup", { email: `thread-${Date.now()}@example.test`, first_name: "Thread", require_end_user_id: false });
    const agent = await post("/agents", { name: "Thread" }, key);
    const run = await post("/runs", { teammate_id: agent.id, message: "hello", stream: false, permission_mode: "autonomous" }, key);
    const read = async () => (await (await fetch(`${base}/api/v2/runs/${run.id}`, { headers: { authorization: `Bearer ${key}` } })).json()) as Record<string, any>;
    await expect.poll(async () => (await read()).status, { timeout: 30_000 }).toBe("completed");
    expect((await read()).output).toBe("Echo: hello");
    // Production logs are JSON lines: the pass's line names the thread it ran on.
    const pass = output.split("\n").find((line) => line.includes('"msg":"run pass ended"') && line.includes(`"runId":${run.id},`));
    expect(pass).toContain('"thread":"worker"');
    server.kill("SIGTERM");
    expect(await exited).toBe(0);
  } finally {
    if (server.exitCode === null && server.signalCode === null) server.kill("SIGKILL");
    await exited;
    await onServer(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  }
});
