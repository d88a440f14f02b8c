// Child process of bench/runs.ts: serves the platform on a loopback port (in-memory PGlite, or
// PostgreSQL with BENCH_DATABASE_URL), signs up an account with an agent, and prints one JSON line
// with what the load generator needs. The generator runs in the parent so it does not share an event
// loop with the server it measures.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { serve } from "@hono/node-server";
import { streamText } from "ai";
import { openDatabase } from "@/server/db";
import { createPlatformApp } from "@/server/platform/app";
import { platformConfigFromEnv } from "@/server/platform/config";
import { createPlatformDeps } from "@/server/platform/deps";
import { createSimModel } from "@/server/platform/runtime/models/sim";
import { createLimiters } from "@/server/platform/middleware/rate-limit";
import { sseEvent } from "@/server/platform/routes/runs/stream";
import { addBalanceEntry } from "@/server/platform/services/billing";
import { recordingMailer } from "@/server/platform/services/mailer";

// eslint-disable-next-line no-restricted-properties -- benchmark switch, not app configuration
const url = process.env.BENCH_DATABASE_URL;
const database = await openDatabase(url ? { url } : { dataDir: "memory://" });
const deps = createPlatformDeps({
  database: async () => database,
  config: platformConfigFromEnv(),
  limiters: createLimiters({ accountPerMinute: 1e9, ipPerMinute: 1e9, signupPerMinute: 1e9, store: "memory" }),
  mailer: recordingMailer,
  languageModel: () => createSimModel(),
});
const app = createPlatformApp(deps);
await deps.runtime();

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
// text deltas as SSE frames, with no auth, database or log. runs-ttft measures it beside the platform.
const bare = http.createServer((request, response) => {
  let body = "";
  request.setEncoding("utf8");
  request.on("data", (chunk: string) => (body += chunk));
  request.on("end", () => {
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

// The event loop's delay over the benchmark, printed to stderr when it stops: how long a ready callback
// (a request's next step) waited for the loop.
const loopDelay = monitorEventLoopDelay({ resolution: 1 });
loopDelay.enable();

process.on("SIGTERM", () => {
  loopDelay.disable();
  const ms = (ns: number) => (ns / 1e6).toFixed(1);
  console.error(
    `server event loop delay: p50 ${ms(loopDelay.percentile(50))} ms, p99 ${ms(loopDelay.percentile(99))} ms, max ${ms(loopDelay.max)} ms`,
  );
  void deps
    .close()
    .then(() => database.close())
    .finally(() => process.exit(0));
});
