// Child process of bench/runs.ts: serves the platform on a loopback port (in-memory PGlite, or
// PostgreSQL with BENCH_DATABASE_URL), signs up an account with an agent, and prints one JSON line
// with what the load generator needs. The generator runs in the parent so it does not share an event
// loop with the server it measures. BENCH_ROLE picks the platform's role: all (default: serves and
// executes), web (serves, executes nothing) or worker (executes runs of an existing bench database,
// opens no port and prints {"role":"worker"} once ready). RUN_WORKER_CONCURRENCY caps a worker.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { serve } from "@hono/node-server";
import { streamText } from "ai";
import pg from "pg";
import { env } from "@/lib/env";
import { openDatabase } from "@/server/shared/db";
import { createPlatformApp } from "@/server/platform/app";
import { platformConfigFromEnv } from "@/server/platform/config";
import type { PlatformRole } from "@/server/platform/context";
import { createPlatformDeps } from "@/server/platform/deps";
import { createSimModel } from "@/server/platform/models/sim";
import { startWorkerThread, wantsWorkerThread } from "@/server/platform/runtime/worker-thread";
import { createLimiters } from "@/server/platform/middleware/rate-limit";
import { sseEvent } from "@/server/platform/routes/runs/sse-event";
import { addBalanceEntry } from "@/server/platform/services/billing/billing";
import { recordingMailer } from "@/server/platform/services/messaging/mailer";

// eslint-disable-next-line no-restricted-properties -- benchmark switch, not app configuration
const url = process.env.BENCH_DATABASE_URL;
// eslint-disable-next-line no-restricted-properties -- benchmark switch, not app configuration
const role = (process.env.BENCH_ROLE ?? "all") as PlatformRole;
if (role !== "all" && !url) throw new Error(`BENCH_ROLE=${role} needs PostgreSQL (BENCH_DATABASE_URL)`);
// PGlite on a thread of its own, as `npm run platform` runs it.
const database = await openDatabase(url ? { url } : { dataDir: "memory://", pgliteThread: env.INLAY_WORKER_THREAD });
let floorPool: pg.Pool | undefined;
// Model calls this process made: how the runs spread over the workers (printed when it stops).
let modelCalls = 0;
const config = platformConfigFromEnv();
// Role all on PostgreSQL runs as `npm run platform` does: its standard runs execute on a worker thread
// (the platform's own entry, with the catalogue's sim model; this process counts only its own calls).
const workerThread =
  wantsWorkerThread(role, url, env.INLAY_WORKER_THREAD)
    ? await startWorkerThread({
        localBaseUrl: config.publicBaseUrl,
        databaseUrl: url,
        onExit: (error) => {
          console.error("the worker thread ended", error);
          process.exit(1);
        },
      })
    : undefined;
const deps = createPlatformDeps({
  database: async () => database,
  config,
  role,
  ...(workerThread ? { workerThread } : {}),
  workerConcurrency: env.RUN_WORKER_CONCURRENCY,
  limiters: createLimiters({ accountPerMinute: 1e9, ipPerMinute: 1e9, signupPerMinute: 1e9, store: "memory" }),
  mailer: recordingMailer,
  languageModel: () => {
    modelCalls++;
    return createSimModel();
  },
});
await deps.runtime();

// The event loop's delay over the benchmark, printed to stderr when it stops: how long a ready callback
// (a request's next step) waited for the loop.
const loopDelay = monitorEventLoopDelay({ resolution: 1 });
process.on("SIGTERM", () => {
  loopDelay.disable();
  const ms = (ns: number) => (ns / 1e6).toFixed(1);
  const calls = role === "web" ? "" : `, ${modelCalls} model calls`;
  console.error(
    `server (${role}, pid ${process.pid}) event loop delay: p50 ${ms(loopDelay.percentile(50))} ms, p99 ${ms(loopDelay.percentile(99))} ms, max ${ms(loopDelay.max)} ms${calls}`,
  );
  void deps
    .close()
    .then(() => floorPool?.end())
    .then(() => database.close())
    .finally(() => process.exit(0));
});

if (role === "worker") {
  console.log(JSON.stringify({ role }));
  loopDelay.enable();
} else {
  await serveBench();
}

async function serveBench() {
  const app = createPlatformApp(deps);

  const port = await new Promise<number>((resolve) => {
    const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve((server.address() as AddressInfo).port));
  });
  const base = `http://127.0.0.1:${port}/api/v2`;
  const email = `bench-${Date.now()}@example.test`;
  const signup = (await (
    await fetch(`${base}/signup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, first_name: "Bench", require_end_user_id: false }),
    })
  ).json()) as { api_key: string };
  // A vendor's account as it is in production: email verified and funded. The signup's $5 test credit
  // and the unverified-email cap (25 runs) would refuse most runs of a benchmark with 402s.
  const account = await database.prisma.platformAccount.update({ where: { email }, data: { emailVerifiedAt: new Date() } });
  await addBalanceEntry(database.prisma, account.id, {
    type: "adjustment",
    amountMicros: 1_000_000_000_000n,
    description: "benchmark funding",
  });
  const agent = (await (
    await fetch(`${base}/agents`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${signup.api_key}` },
      body: JSON.stringify({ name: "Bench agent", default_permission_mode: "autonomous" }),
    })
  ).json()) as { id: number };

  // The floor under any platform on this machine: a bare node:http server that streams the sim model's
  // text deltas as SSE frames, with no auth, database or log. runs-ttft and runs-held measure it beside
  // the platform. On PostgreSQL, POST /insert is run creation's floor: one INSERT through a pg pool of
  // the platform's size, answered with the row as JSON (runs-create). POST /run is the floor of a
  // durable run: the fewest writes that keep one (its row, then after answering the sim model's frames
  // in one INSERT and the row completed), with no auth, admission, money or lease.
  if (url) {
    floorPool = new pg.Pool({ connectionString: url, max: env.DATABASE_POOL_MAX });
    await floorPool.query(
      "CREATE TABLE IF NOT EXISTS bench_floor (id serial PRIMARY KEY, body jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now())",
    );
    await floorPool.query(
      "CREATE TABLE IF NOT EXISTS bench_floor_runs (id serial PRIMARY KEY, body jsonb NOT NULL, status text NOT NULL, output text, created_at timestamptz NOT NULL DEFAULT now())",
    );
    await floorPool.query("CREATE TABLE IF NOT EXISTS bench_floor_events (id bigserial PRIMARY KEY, run_id integer NOT NULL, data jsonb NOT NULL)");
  }
  const executeFloorRun = async (pool: pg.Pool, runId: number, message: string) => {
    const frames: object[] = [{ type: "run_status", status: "running" }];
    let output = "";
    const result = streamText({ model: createSimModel(), messages: [{ role: "user", content: message }] });
    for await (const part of result.fullStream) {
      if (part.type !== "text-delta") continue;
      output += part.text;
      frames.push({ type: "content_block_delta", id: part.id, delta: { type: "text_delta", text: part.text } });
    }
    frames.push({ type: "run_status", status: "completed" }, { type: "done", completion_state: "completed" });
    await pool.query("INSERT INTO bench_floor_events (run_id, data) SELECT $1, unnest($2::jsonb[])", [runId, frames.map((f) => JSON.stringify(f))]);
    await pool.query("UPDATE bench_floor_runs SET status = 'completed', output = $2 WHERE id = $1", [runId, output]);
  };
  const bare = http.createServer((request, response) => {
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => (body += chunk));
    request.on("end", () => {
      if ((request.url === "/insert" || request.url === "/run") && floorPool) {
        const pool = floorPool;
        const run = request.url === "/run";
        pool
          .query<{ id: number; created_at: Date }>(
            run
              ? "INSERT INTO bench_floor_runs (body, status) VALUES ($1, 'running') RETURNING id, created_at"
              : "INSERT INTO bench_floor (body) VALUES ($1) RETURNING id, created_at",
            [body],
          )
          .then(({ rows }) => {
            response.writeHead(201, { "content-type": "application/json" });
            response.end(JSON.stringify({ id: rows[0]!.id, status: run ? "running" : "queued", created_at: rows[0]!.created_at }));
            if (run) {
              const { message } = JSON.parse(body) as { message: string };
              executeFloorRun(pool, rows[0]!.id, message).catch((error: unknown) => console.error("floor run failed", error));
            }
          })
          .catch(() => {
            response.writeHead(500);
            response.end();
          });
        return;
      }
      const { message } = JSON.parse(body) as { message: string };
      response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      void (async () => {
        let id = 0;
        const result = streamText({ model: createSimModel(), messages: [{ role: "user", content: message }] });
        for await (const part of result.fullStream) {
          if (part.type === "text-delta") {
            response.write(sseEvent(++id, { type: "content_block_delta", id: part.id, delta: { type: "text_delta", text: part.text } }));
          }
        }
        response.end(sseEvent(++id, { type: "done", completion_state: "completed", stop_reason: "end_turn", message_count: 2 }));
      })();
    });
  });
  const barePort = await new Promise<number>((resolve) => bare.listen(0, "127.0.0.1", () => resolve((bare.address() as AddressInfo).port)));

  console.log(
    JSON.stringify({ base, bareBase: `http://127.0.0.1:${barePort}`, key: signup.api_key, agentId: agent.id, database: url ? "postgres" : "pglite" }),
  );

  loopDelay.enable();
}
