// Child process of bench/http-agents.ts: serves the platform (in-memory PGlite, or PostgreSQL with
// BENCH_DATABASE_URL) and a bare Hono route that returns the same agent JSON from memory, each on its
// own loopback port, then prints one JSON line with their URLs. The load generator runs in the parent
// so it does not share an event loop with the servers it measures.
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { openDatabase } from "@/server/shared/db";
import { createPlatformApp } from "@/server/platform/app";
import { env } from "@/lib/env";
import { platformConfigFromEnv } from "@/server/platform/config";
import { createPlatformDeps } from "@/server/platform/deps";
import { createSimModel } from "@/server/platform/models/sim";
import { createLimiters } from "@/server/platform/middleware/rate-limit";
import { recordingMailer } from "@/server/platform/services/messaging/mailer";

// eslint-disable-next-line no-restricted-properties -- benchmark switch, not app configuration
const url = process.env.BENCH_DATABASE_URL;
// PGlite on a thread of its own, as `npm run platform` runs it.
const database = await openDatabase(url ? { url } : { dataDir: "memory://", pgliteThread: env.INLAY_WORKER_THREAD });
const config = platformConfigFromEnv();
const platform = createPlatformApp(createPlatformDeps({
  database: async () => database,
  config,
  // The limiter still runs on every request; the allowance is only high enough not to refuse.
  limiters: createLimiters({ accountPerMinute: 1e9, ipPerMinute: 1e9, signupPerMinute: 1e9, store: "memory" }),
  mailer: recordingMailer,
  languageModel: () => createSimModel(),
}));

const listen = (fetch: (request: Request) => Response | Promise<Response>) =>
  new Promise<number>((resolve) => {
    const server = serve({ fetch, port: 0, hostname: "127.0.0.1" }, () => resolve((server.address() as AddressInfo).port));
  });

const platformPort = await listen(platform.fetch);
const base = `http://127.0.0.1:${platformPort}/api/v2`;
const signup = (await (
  await fetch(`${base}/signup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: `bench-${Date.now()}@example.test`, first_name: "Bench" }),
  })
).json()) as { api_key: string };
const agent = (await (
  await fetch(`${base}/agents?user_id=bench-user`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${signup.api_key}` },
    body: JSON.stringify({ name: "Bench agent", instructions: "Answer briefly." }),
  })
).json()) as { id: number };
const agentJson = await (
  await fetch(`${base}/agents/${agent.id}?user_id=bench-user`, { headers: { authorization: `Bearer ${signup.api_key}` } })
).text();

const bare = new Hono();
bare.get("/api/v2/agents/:id", (c) => c.body(agentJson, 200, { "content-type": "application/json" }));
const barePort = await listen(bare.fetch);

console.log(
  JSON.stringify({
    platform: `${base}/agents/${agent.id}?user_id=bench-user`,
    bare: `http://127.0.0.1:${barePort}/api/v2/agents/${agent.id}?user_id=bench-user`,
    key: signup.api_key,
    database: url ? "postgres" : "pglite",
  }),
);

// Exit cleanly on SIGTERM so `node --cpu-prof` can write its profile when asked to profile this.
process.on("SIGTERM", () => process.exit(0));
