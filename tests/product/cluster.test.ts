// The scale-out deployment for real: `startCluster` (npm run cluster) with 2 web instances and 2
// workers as child processes on one PostgreSQL database and Redis, and the framework's app twice
// (`next start` on the production build, on a database of its own, a customer of the platform with its
// own account), behind one nginx that sends /api/v2/ to the platform and the rest to the apps. Every
// process runs at the shipped lease settings, so the worker-kill test measures the takeover a
// deployment gets. Runs after `npm run build` (tests/run-all.mjs): the apps serve `.next/`.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createServer, type AddressInfo } from "node:net";
import { createInterface } from "node:readline";
import { setTimeout as delay } from "node:timers/promises";
import { existsSync, writeFileSync } from "node:fs";
import { EventSourceParserStream } from "eventsource-parser/stream";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPlatformClient, type RunFrame } from "@/lib/platform-client";
import { startCluster, type Cluster, type Instance } from "@/server/cluster/start-cluster";
import { EMBED_ORIGIN_HEADER, EMBED_TOKEN_HEADER } from "@/server/framework/chat/framework-context";
import { setAllowedOrigins } from "@/server/framework/embed/origins";
import { createEmbedSecret } from "@/server/framework/embed/secrets";
import { setTenantLimits } from "@/server/framework/tenancy/limits";
import { verifyAccountEmail } from "@/server/platform/services/account/operator";
import { openDatabase, type Database } from "@/server/shared/db";
import { chatTurn, textOfMessage, type ChatTurn } from "../helpers/chat-stream";
import { createEmptyPostgresDatabase } from "../helpers/database";
import { readFrames, textOf, type Frame } from "../helpers/sse";

// eslint-disable-next-line no-restricted-properties -- test infrastructure, not app configuration
const redisUrl = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
// Above what the apps' account asks in the rolling restart (30 chat turns, their reattachments and
// the ledger's reads), low enough for the rate-limit test to reach it quickly.
const ACCOUNT_PER_MINUTE = 400;
const METRICS_TOKEN = `metrics-${randomUUID()}`;

// The vendor's page the chats are embedded in, and the app's demo tenant and agent (prisma/seed.ts).
const VENDOR_ORIGIN = "http://127.0.0.1:4999";
const AGENT = "Acme assistant";

let database: Awaited<ReturnType<typeof createEmptyPostgresDatabase>>;
let appDatabase: Awaited<ReturnType<typeof createEmptyPostgresDatabase>>;
let appDb: Database | undefined;
let cluster: Cluster | undefined;
/** The app's platform account: its key, and the embed secret of the demo tenant it serves. */
let appAccount: { key: string };
let embedSecret: string;
const logs: string[] = [];

beforeAll(async () => {
  if (!existsSync(".next/BUILD_ID") || !existsSync("dist/platform/standalone.js")) {
    throw new Error("the cluster runs the production build (.next/, dist/platform/): run npm run build first");
  }
  database = await createEmptyPostgresDatabase();
  appDatabase = await createEmptyPostgresDatabase();
  cluster = await startCluster({
    web: 2,
    workers: 2,
    port: 0,
    // The compiled platform the build wrote, as the image runs it.
    entry: ["dist/platform/standalone.js"],
    databaseUrl: database.url,
    redisUrl,
    env: {
      // eslint-disable-next-line no-restricted-properties -- the children inherit the test's environment
      ...process.env,
      NODE_ENV: "development",
      LOG_LEVEL: "warn",
      DATABASE_POOL_MAX: "5",
      // Counters of this run only, in the machine's shared Redis.
      RATE_LIMIT_KEY_PREFIX: `cluster-test-${randomUUID()}`,
      PLATFORM_RATE_LIMIT_ACCOUNT_PER_MINUTE: String(ACCOUNT_PER_MINUTE),
      PLATFORM_RATE_LIMIT_SIGNUP_PER_MINUTE: "100",
      INLAY_METRICS_TOKEN: METRICS_TOKEN,
      // The ledger's webhook goes to the apps on loopback, and is tried again soon after an app refused it.
      OUTBOUND_ALLOW_LOOPBACK: "true",
      WEBHOOK_RETRY_SCHEDULE: "0,500ms,2s,5s,10s",
    },
    // docs/deploy.md's first start: the app's platform account, and the ledger's webhook at the app.
    app: {
      instances: 2,
      async env({ origin, platformUrl }) {
        const email = `app-${randomUUID()}@example.test`;
        const signup = await call(platformUrl, "/signup", { body: { email, first_name: "Inlay app", password: "correct-horse", product: "inlay-framework" } });
        if (signup.status !== 201) throw new Error(`POST /signup: ${signup.status} ${JSON.stringify(signup.body)}`);
        appAccount = { key: signup.body.api_key };
        // What `npm run inlay -- accounts verify` does: an unverified account may start only a few runs.
        const platformDb = await openDatabase({ url: database.url });
        try {
          await verifyAccountEmail(platformDb.prisma, email);
        } finally {
          await platformDb.close();
        }
        const hook = await call(platformUrl, "/webhooks", {
          key: appAccount.key,
          body: { url: `${origin}/api/platform-webhooks`, events: ["run.completed", "run.failed", "run.cancelled"], all_end_users: true },
        });
        if (hook.status !== 201) throw new Error(`POST /webhooks: ${hook.status} ${JSON.stringify(hook.body)}`);
        return {
          PATH: process.env.PATH, // eslint-disable-line no-restricted-properties -- the apps find node as this process does
          NODE_ENV: "production",
          NEXT_TELEMETRY_DISABLED: "1",
          LOG_LEVEL: "warn",
          DATABASE_URL: appDatabase.url,
          DATABASE_POOL_MAX: "5",
          NEXTAUTH_SECRET: randomUUID(),
          INLAY_METRICS_TOKEN: METRICS_TOKEN,
          TRUST_PROXY: "true",
          PLATFORM_API_KEY: appAccount.key,
          PLATFORM_WEBHOOK_SECRET: hook.body.secret,
        };
      },
    },
    onLog: (line) => logs.push(line),
  });
  // The vendor's side: its page's origin allowed, an embed secret its backend mints sessions with,
  // and no per-minute or at-once limit slowing thirty turns (the cost caps stay: admission compares them).
  appDb = await openDatabase({ url: appDatabase.url });
  const acme = await appDb.prisma.tenant.findUniqueOrThrow({ where: { slug: "acme" } });
  await setAllowedOrigins(appDb.prisma, acme.id, [VENDOR_ORIGIN]);
  await setTenantLimits(appDb.prisma, acme.id, { runsPerMonth: 1000, costPerMonthCents: 50_000, concurrentRuns: null, turnsPerMinutePerMember: null });
  embedSecret = (await createEmbedSecret(appDb.prisma, acme.id, { name: "cluster test", createdById: null })).secret;
}, 240_000);

afterAll(async () => {
  // INLAY_TEST_CLUSTER_LOG=FILE keeps every process's log lines there, to read after a failure.
  // eslint-disable-next-line no-restricted-properties -- a debugging switch of this test
  const logFile = process.env.INLAY_TEST_CLUSTER_LOG;
  if (logFile) writeFileSync(logFile, `${logs.join("\n")}\n`);
  await cluster?.stop();
  await appDb?.close();
  await database?.drop();
  await appDatabase?.drop();
}, 60_000);

const nginx = () => cluster!.baseUrl;
const webA = () => cluster!.web[0]!;
const webB = () => cluster!.web[1]!;

interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

async function call(
  baseUrl: string,
  path: string,
  options: { key?: string; method?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const response = await fetch(`${baseUrl}${path}`, {
    method: options.method ?? (options.body === undefined ? "GET" : "POST"),
    headers: {
      ...(options.key ? { authorization: `Bearer ${options.key}` } : {}),
      ...(options.body === undefined ? {} : { "content-type": "application/json" }),
      ...options.headers,
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
}

/** A new account (through nginx) with one agent: each test its own, so its allowance is its own. */
async function newAccount(): Promise<{ key: string; agentId: number }> {
  const signup = await call(nginx(), "/signup", {
    body: { email: `cluster-${randomUUID()}@example.test`, first_name: "Cluster", password: "correct-horse", require_end_user_id: false },
  });
  if (signup.status !== 201) throw new Error(`POST /signup: ${signup.status} ${JSON.stringify(signup.body)}`);
  const key: string = signup.body.api_key;
  const agent = await call(nginx(), "/agents", { key, body: { name: "Clustered" } });
  if (agent.status !== 201) throw new Error(`POST /agents: ${agent.status} ${JSON.stringify(agent.body)}`);
  return { key, agentId: agent.body.id };
}

async function startRun(baseUrl: string, account: { key: string; agentId: number }, message: string): Promise<number> {
  const created = await call(baseUrl, "/runs", {
    key: account.key,
    body: { teammate_id: account.agentId, message, stream: false, permission_mode: "autonomous" },
  });
  if (created.status !== 200) throw new Error(`POST /runs: ${created.status} ${JSON.stringify(created.body)}`);
  return created.body.id;
}

const events = (baseUrl: string, key: string, runId: number, lastEventId?: string) =>
  fetch(`${baseUrl}/runs/${runId}/events`, {
    headers: { authorization: `Bearer ${key}`, ...(lastEventId ? { "last-event-id": lastEventId } : {}) },
  });

interface TimedFrame extends Frame {
  at: number;
}

/** Frames as they arrive, with the time each did; ends quietly when the serving instance dies. */
async function* timedFrames(response: Response): AsyncGenerator<TimedFrame> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
  try {
    for (;;) {
      let result: Awaited<ReturnType<typeof reader.read>>;
      try {
        result = await reader.read();
      } catch {
        return;
      }
      if (result.done) return;
      yield { id: result.value.id, data: JSON.parse(result.value.data), at: Date.now() };
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/** The log's invariants a reader relies on: ids never repeat and rise, one `done`, at the end. */
function expectWellFormed(frames: Frame[]) {
  const ids = frames.map((frame) => Number(frame.id));
  expect(ids.every((id) => Number.isInteger(id))).toBe(true);
  expect(new Set(ids).size).toBe(ids.length);
  expect(ids).toEqual([...ids].sort((x, y) => x - y));
  expect(frames.filter((frame) => frame.data.type === "done")).toHaveLength(1);
  expect(frames.at(-1)!.data).toMatchObject({ type: "done", completion_state: "completed" });
}

async function leaseOwnerPid(runId: number): Promise<number | undefined> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ lease_owner: string | null }>("SELECT lease_owner FROM platform_runs WHERE id = $1", [runId]);
    const match = /^worker_(\d+)_/.exec(rows[0]?.lease_owner ?? "");
    return match ? Number(match[1]) : undefined;
  } finally {
    await client.end();
  }
}

const wordsOf = (text: string) => text.trim().split(/\s+/);

describe("a cluster of 2 web instances and 2 workers behind nginx", () => {
  it("streams a run started through web instance A through web instance B, and a run through nginx", async () => {
    const account = await newAccount();
    const runId = await startRun(webA().baseUrl!, account, "::delay 10\n::words 30");
    const log = await readFrames(await events(webB().baseUrl!, account.key, runId), { until: (frame) => frame.data.type === "done" });
    const run = await call(webB().baseUrl!, `/runs/${runId}`, { key: account.key });
    expect(run.body).toMatchObject({ status: "completed" });
    expect(wordsOf(run.body.output)).toHaveLength(30);
    expect(textOf(log)).toBe(run.body.output);
    expectWellFormed(log);

    const streamed = await fetch(`${nginx()}/runs`, {
      method: "POST",
      headers: { authorization: `Bearer ${account.key}`, "content-type": "application/json" },
      body: JSON.stringify({ teammate_id: account.agentId, message: "::delay 10\n::words 20", stream: true, permission_mode: "autonomous" }),
    });
    expect(streamed.status).toBe(200);
    expect(streamed.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const streamedRunId = Number(streamed.headers.get("x-run-id"));
    expect(streamedRunId).toBeGreaterThan(runId);
    const frames = await readFrames(streamed, { until: (frame) => frame.data.type === "done" });
    const second = await call(nginx(), `/runs/${streamedRunId}`, { key: account.key });
    expect(second.body).toMatchObject({ status: "completed" });
    expect(wordsOf(second.body.output)).toHaveLength(20);
    expect(textOf(frames)).toBe(second.body.output);
    expectWellFormed(frames);
  });

  it("loses no run and no text when the worker executing it is killed (shipped lease settings)", async () => {
    const account = await newAccount();
    const runId = await startRun(nginx(), account, "::delay 40\n::words 120");
    const frames: TimedFrame[] = [];
    let killed: Instance | undefined;
    for await (const frame of timedFrames(await events(webA().baseUrl!, account.key, runId))) {
      frames.push(frame);
      if (!killed && frames.filter((f) => f.data.type === "content_block_delta").length === 20) {
        const pid = await leaseOwnerPid(runId);
        killed = cluster!.workers.find((worker) => worker.pid === pid);
        expect(killed, `lease owner pid ${pid} is one of the cluster's workers`).toBeDefined();
        await cluster!.kill(killed!, "SIGKILL");
      }
      if (frame.data.type === "done") break;
    }
    expect(killed).toBeDefined();

    const run = await call(webB().baseUrl!, `/runs/${runId}`, { key: account.key });
    expect(run.body).toMatchObject({ status: "completed" });
    expect(wordsOf(run.body.output)).toHaveLength(120);
    expect(textOf(frames)).toBe(run.body.output);
    expectWellFormed(frames);
    // The surviving worker took it over (how soon is bench/recovery.ts's figure, not a test's).
    const resumes = frames.filter((frame) => frame.data.resumed);
    expect(resumes).toHaveLength(1);
    expect(frames.indexOf(resumes[0]!)).toBeLessThan(frames.length - 1);
    expect(await leaseOwnerPid(runId)).toBeUndefined();

    const replacement = await cluster!.replace(killed!);
    expect(replacement.pid).not.toBe(killed!.pid);
  }, 60_000);

  it("resumes a stream through nginx with Last-Event-ID when the web instance serving it is killed", async () => {
    const account = await newAccount();
    const runId = await startRun(nginx(), account, "::delay 40\n::words 80");
    const victim = webA();
    const before: Frame[] = [];
    let killed = false;
    for await (const frame of timedFrames(await events(victim.baseUrl!, account.key, runId))) {
      before.push(frame);
      if (!killed && before.filter((f) => f.data.type === "content_block_delta").length === 15) {
        killed = true;
        // Not awaited here: the stream keeps being read until the dead instance's socket closes.
        void cluster!.kill(victim, "SIGKILL");
      }
    }
    expect(killed).toBe(true);
    await victim.exited;
    expect(before.some((frame) => frame.data.type === "done")).toBe(false);

    const rest = await readFrames(await events(nginx(), account.key, runId, before.at(-1)!.id), {
      until: (frame) => frame.data.type === "done",
    });
    expect(rest.length).toBeGreaterThan(0);
    const all = [...before, ...rest];
    const run = await call(nginx(), `/runs/${runId}`, { key: account.key });
    expect(run.body).toMatchObject({ status: "completed" });
    expect(wordsOf(run.body.output)).toHaveLength(80);
    expect(textOf(all)).toBe(run.body.output);
    expectWellFormed(all);

    // The replacement takes the same port, so nginx sends it requests again.
    const replacement = await cluster!.replace(victim);
    expect(replacement.baseUrl).toBe(victim.baseUrl);
    expect((await call(replacement.baseUrl!, `/runs/${runId}`, { key: account.key })).body.status).toBe("completed");
  }, 60_000);

  it("holds an account's rate limit across both web instances", async () => {
    const account = await newAccount(); // the signup is counted per IP; POST /agents is the account's first
    const statuses: number[] = [];
    let refused: Answer | undefined;
    for (let i = 1; i < ACCOUNT_PER_MINUTE + 6; i++) {
      const answer = await call(i % 2 ? webA().baseUrl! : webB().baseUrl!, "/agents", { key: account.key });
      statuses.push(answer.status);
      if (answer.status === 429) refused = answer;
    }
    expect(statuses).toEqual([
      ...Array.from({ length: ACCOUNT_PER_MINUTE - 1 }, () => 200),
      ...Array.from({ length: 6 }, () => 429),
    ]);
    expect(refused!.body.error).toMatchObject({ type: "rate_limit_error", request_id: expect.stringMatching(/^req_/) });
    expect(Number(refused!.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused!.headers.get("x-ratelimit-remaining")).toBe("0");
    expect((await call(nginx(), "/agents", { key: account.key })).status).toBe(429);
  });

  it("creates one run for one Idempotency-Key sent to both web instances at once, and replays it on either", async () => {
    const account = await newAccount();
    const key = randomUUID();
    const body = { teammate_id: account.agentId, message: "::words 5", stream: false, permission_mode: "autonomous" };
    const post = (baseUrl: string) => call(baseUrl, "/runs", { key: account.key, body, headers: { "idempotency-key": key } });
    const [a, b] = await Promise.all([post(webA().baseUrl!), post(webB().baseUrl!)]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(a.body.id).toBe(b.body.id);
    expect([a.headers.get("idempotent-replay"), b.headers.get("idempotent-replay")].sort()).toEqual([null, "true"]);
    const original = a.headers.get("idempotent-replay") ? webB() : webA();
    const other = original === webA() ? webB() : webA();
    const replay = await post(other.baseUrl!);
    expect(replay.status).toBe(200);
    expect(replay.body.id).toBe(a.body.id);
    expect(replay.headers.get("idempotent-replay")).toBe("true");
    const list = await call(nginx(), "/runs", { key: account.key });
    expect(list.body.data.map((run: { id: number }) => run.id)).toEqual([a.body.id]);
  });

  // B hears of the revocation over NOTIFY, which PostgreSQL delivers asynchronously: its very next
  // request can still beat it (measured: 2 in 30), so B gets NOTIFY's delivery time, one second at most.
  it("refuses a revoked key on every instance, B within NOTIFY's delivery", async () => {
    const account = await newAccount();
    const created = await call(webA().baseUrl!, "/keys", { key: account.key, body: { name: "shared" } });
    expect(created.status).toBe(201);
    const named: string = created.body.key;
    // Both instances hold the key in their cache.
    expect((await call(webA().baseUrl!, "/agents", { key: named })).status).toBe(200);
    expect((await call(webB().baseUrl!, "/agents", { key: named })).status).toBe(200);
    expect((await call(webB().baseUrl!, "/agents", { key: named })).status).toBe(200);

    expect((await call(webA().baseUrl!, `/keys/${created.body.id}`, { key: account.key, method: "DELETE" })).status).toBe(204);
    const deadline = Date.now() + 1_000;
    let refusedOnB = await call(webB().baseUrl!, "/agents", { key: named });
    while (refusedOnB.status === 200 && Date.now() < deadline) {
      await delay(10);
      refusedOnB = await call(webB().baseUrl!, "/agents", { key: named });
    }
    expect(refusedOnB.status).toBe(401);
    expect(refusedOnB.body.error.type).toBe("authentication_error");
    expect((await call(webA().baseUrl!, "/agents", { key: named })).status).toBe(401);
    expect((await call(nginx(), "/agents", { key: named })).status).toBe(401);
    expect((await call(webB().baseUrl!, "/agents", { key: account.key })).status).toBe(200);
  });

  it("hands out links to nginx's address from every instance, never an instance's own port", async () => {
    for (const baseUrl of [nginx(), webA().baseUrl!, webB().baseUrl!]) {
      const missing = await call(baseUrl, "/nope");
      expect(missing.status).toBe(404);
      expect(missing.body.error.doc_url).toBe(`${nginx()}/docs/errors#not_found`);
    }
  });

  it("answers /healthz and /readyz on every instance: web ones on their port, workers on their probe port", async () => {
    for (const instance of [...cluster!.web, ...cluster!.workers]) {
      const alive = await fetch(`${instance.probeUrl}/healthz`);
      expect(alive.status).toBe(200);
      expect(await alive.json()).toEqual({ status: "ok", role: instance.role });
      const ready = await fetch(`${instance.probeUrl}/readyz`);
      expect(ready.status).toBe(200);
      const checks = { database: { ok: true }, migrations: { ok: true }, runtime: { ok: true } };
      expect(await ready.json()).toEqual({ ready: true, role: instance.role, checks: instance.role === "worker" ? { ...checks, worker: { ok: true } } : checks });
    }
  });

  it("serves Prometheus metrics from every process: requests on the web ones, runs, tokens, queue and pool on the workers", async () => {
    const account = await newAccount();
    const runId = await startRun(nginx(), account, "::words 12");
    await readFrames(await events(nginx(), account.key, runId), { until: (frame) => frame.data.type === "done" });
    const scrape = async (instance: Instance) => {
      const answer = await fetch(`${instance.probeUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      expect(answer.status).toBe(200);
      return answer.text();
    };
    const total = (texts: string[], series: RegExp) =>
      texts.flatMap((text) => [...text.matchAll(new RegExp(`^${series.source} (\\S+)$`, "gm"))].map((match) => Number(match[1]))).reduce((a, b) => a + b, 0);
    const web = await Promise.all(cluster!.web.map(scrape));
    const workers = await Promise.all(cluster!.workers.map(scrape));
    expect(total(web, /inlay_http_request_duration_seconds_count\{method="POST",route="\/api\/v2\/runs",status="200"\}/)).toBeGreaterThanOrEqual(1);
    expect(total(web, /inlay_runs_admitted_total/)).toBeGreaterThanOrEqual(1);
    expect(total(workers, /inlay_runs_ended_total\{outcome="completed"\}/)).toBeGreaterThanOrEqual(1);
    expect(total(workers, /inlay_run_first_token_seconds_count/)).toBeGreaterThanOrEqual(1);
    expect(total(workers, /inlay_model_tokens_total\{provider="inlay",model="inlay\/sim",kind="output"\}/)).toBeGreaterThanOrEqual(12);
    for (const text of [...web, ...workers]) {
      expect(text).toMatch(/^inlay_database_pool_connections\{state="total"\} \d+$/m);
      expect(text).toMatch(/^inlay_queue_jobs\{queue="[^"]+",state="[a-z]+"\} \d+$/m);
    }
    // Without the token: refused, on a web port and on a worker's probe port alike.
    expect((await fetch(`${cluster!.web[0]!.probeUrl}/metrics`)).status).toBe(401);
    expect((await fetch(`${cluster!.workers[0]!.probeUrl}/metrics`)).status).toBe(401);
  });

  // docs/design.md, Operations: stopping is a normal event. Each process of the whole product in turn
  // gets SIGTERM (an app ends its chat streams marked draining, a web one ends its run streams, a worker
  // hands its runs back) and is replaced, while 60 runs stream to API clients and 30 chat turns stream
  // to embedded chats through the apps. The clients resume by themselves (Last-Event-ID; the chat's
  // reattachment) and must see every word once; the apps' run ledger must equal the platform's.
  it("loses nothing in a rolling restart of 2 apps, 2 web and 2 workers: 60 API runs and 30 chat turns streaming", async () => {
    const RUNS_PER_ACCOUNT = 2;
    // Two minutes a run: longer than six drains and restarts take on two cores beside the Playwright
    // passes (about 70 s in CI), so every restart meets live streams.
    const WORDS = 400;
    const CHAT_USERS = 15;
    const TURNS_PER_USER = 2;
    // 30 accounts: each one's requests (its runs, their reconnects) stay within the test's allowance.
    const accounts = await Promise.all(Array.from({ length: 30 }, () => newAccount()));
    // The vendor's backend mints a chat session for each of its users (POST /api/embed/sessions).
    const sessions = await Promise.all(
      Array.from({ length: CHAT_USERS }, async (_, index) => {
        const minted = await fetch(`${cluster!.origin}/api/embed/sessions`, {
          method: "POST",
          headers: { authorization: `Bearer ${embedSecret}`, "content-type": "application/json" },
          body: JSON.stringify({ user_id: `vendor-user-${index}`, email: `user-${index}@vendor.test`, agent: AGENT, origin: VENDOR_ORIGIN }),
        });
        expect(minted.status).toBe(200);
        return { [EMBED_TOKEN_HEADER]: ((await minted.json()) as { token: string }).token, [EMBED_ORIGIN_HEADER]: VENDOR_ORIGIN };
      }),
    );
    // Every answer nginx gave, before the client's own retries: a rolling restart shows clients no 5xx
    // (deploy/nginx.conf and server/cluster/nginx-config.ts retry what an instance going away refused).
    const serverErrors: string[] = [];
    const countingFetch: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (response.status >= 500) serverErrors.push(`${init?.method ?? "GET"} ${String(input)} ${response.status}`);
      return response;
    };
    const started = Date.now();
    const streams = await Promise.all(
      accounts.flatMap((account) =>
        Array.from({ length: RUNS_PER_ACCOUNT }, async () => {
          const client = createPlatformClient({ baseUrl: nginx(), apiKey: account.key, maxRetries: 6, fetch: countingFetch });
          const stream = await client.runs.create({
            teammate_id: account.agentId,
            message: `::delay 300\n::words ${WORDS}`,
            stream: true,
            permission_mode: "autonomous",
          });
          const arrivals: number[] = [];
          const frames: RunFrame[] = [];
          // Settles either way: a client's error fails the test below, naming the run.
          const read = (async () => {
            for await (const frame of stream) {
              frames.push(frame);
              arrivals.push(Date.now());
            }
          })().then(
            () => undefined,
            (error: unknown) => `run ${stream.runId}: ${error instanceof Error ? error.message : String(error)}`,
          );
          return { account, stream, frames, arrivals, read };
        }),
      ),
    );
    let chatCounter = 0;
    const chatErrors: string[] = [];
    const chats = sessions.flatMap((headers) =>
      Array.from({ length: TURNS_PER_USER }, () => {
        const turn = chatTurn(`${cluster!.origin}/api/chat`, headers, { agent: AGENT, text: `::delay 300\n::words ${WORDS}`, id: `u${++chatCounter}` });
        return turn.then(
          (value): ChatTurn | string => value,
          (error: unknown) => {
            const message = `chat turn: ${error instanceof Error ? error.message : String(error)}`;
            chatErrors.push(message);
            return message;
          },
        );
      }),
    );
    // Every run has started streaming, and every chat turn has started, before the first process goes.
    await expect.poll(() => streams.every(({ frames }) => frames.some((frame) => frame.type === "content_block_delta")), { timeout: 30_000 }).toBe(true);
    // A turn that failed ends the wait, naming why.
    const chatRuns = async () => (chatErrors.length > 0 ? chatErrors : appDb!.prisma.runAdmission.count({ where: { platformRunId: { not: null } } }));
    await expect.poll(chatRuns, { timeout: 60_000 }).toBe(chats.length);

    const drains: { name: string; ms: number }[] = [];
    const order = [0, 1].flatMap((i) => [cluster!.apps[i]!, cluster!.web[i]!, cluster!.workers[i]!]);
    for (const instance of order) {
      const t = Date.now();
      await cluster!.kill(instance, "SIGTERM");
      drains.push({ name: instance.name, ms: Date.now() - t });
      await cluster!.replace(instance);
    }
    // Some run and some chat turn were still streaming when the last process was replaced: the
    // restarts met live streams.
    expect(streams.some(({ frames }) => frames.at(-1)?.type !== "done")).toBe(true);
    const unsettled = await appDb!.prisma.runAdmission.count({ where: { releasedAt: null } });
    expect(unsettled).toBeGreaterThan(0);
    expect((await Promise.all(streams.map(({ read }) => read))).filter(Boolean)).toEqual([]);
    const turns = await Promise.all(chats);
    expect(turns.filter((turn) => typeof turn === "string")).toEqual([]);
    expect(serverErrors).toEqual([]);

    let largestGap = 0;
    let resumed = 0;
    for (const { account, stream, frames, arrivals } of streams) {
      const run = await call(nginx(), `/runs/${stream.runId}`, { key: account.key });
      expect(run.body).toMatchObject({ status: "completed" });
      expect(run.body.metadata?.interrupted).toBeUndefined();
      expect(wordsOf(run.body.output)).toHaveLength(WORDS);
      // Every word once, in order: nothing missing, nothing repeated across the reconnects.
      const text = frames.map((frame) => (frame.type === "content_block_delta" ? frame.delta.text : "")).join("");
      expect(text).toBe(run.body.output);
      expect(frames.filter((frame) => frame.type === "done")).toHaveLength(1);
      expect(frames.at(-1)).toMatchObject({ type: "done", completion_state: "completed" });
      resumed += frames.filter((frame) => frame.type === "run_status" && frame.resumed).length;
      for (let i = 1; i < arrivals.length; i++) largestGap = Math.max(largestGap, arrivals[i]! - arrivals[i - 1]!);
    }
    // The workers' restarts handed runs back, and other workers resumed them.
    expect(resumed).toBeGreaterThan(0);

    // Each chat shows its run's answer whole, once, and ended completed; the apps' restarts cut some
    // chats' streams, which reattached on the other app. The apps' run ledger (settled from the
    // platform's webhooks, delivered across the restarts) equals the platform's ledger to the
    // micro-USD, turn by turn.
    const chatTurns = turns as ChatTurn[];
    const chatRunIds = chatTurns.map((turn) => turn.runId);
    expect(new Set(chatRunIds).size).toBe(chats.length);
    await expect.poll(() => appDb!.prisma.runAdmission.count({ where: { releasedAt: null } }), { timeout: 60_000 }).toBe(0);
    const platformDb = new pg.Client({ connectionString: database.url });
    await platformDb.connect();
    let platformRuns: Map<number, { status: string; output: string; debited: bigint }>;
    try {
      const { rows } = await platformDb.query<{ id: number; status: string; output: string; debited: string | null }>(
        `SELECT r.id, r.status, r.output #>> '{}' AS output,
                (SELECT -SUM(t.amount_micros) FROM platform_balance_transactions t WHERE t.type = 'debit' AND t.run_id = r.id) AS debited
           FROM platform_runs r WHERE r.id = ANY($1)`,
        [chatRunIds],
      );
      platformRuns = new Map(rows.map((row) => [row.id, { status: row.status, output: row.output, debited: BigInt(row.debited ?? 0) }]));
    } finally {
      await platformDb.end();
    }
    let largestChatGap = 0;
    for (const turn of chatTurns) {
      const run = platformRuns.get(turn.runId);
      expect(run?.status, `run ${turn.runId}`).toBe("completed");
      expect(wordsOf(run!.output)).toHaveLength(WORDS);
      expect(textOfMessage(turn.message)).toBe(run!.output);
      expect(turn.message.metadata).toMatchObject({ runId: turn.runId, status: "completed" });
      for (let i = 1; i < turn.arrivals.length; i++) largestChatGap = Math.max(largestChatGap, turn.arrivals[i]! - turn.arrivals[i - 1]!);
    }
    const chatReattaches = chatTurns.reduce((sum, turn) => sum + turn.reattaches, 0);
    expect(chatReattaches).toBeGreaterThan(0);
    const admissions = await appDb!.prisma.runAdmission.findMany({ select: { platformRunId: true, costMicros: true } });
    expect(admissions.map((admission) => admission.platformRunId).sort()).toEqual([...chatRunIds].sort());
    for (const admission of admissions) expect(admission.costMicros, `run ${admission.platformRunId}`).toBe(platformRuns.get(admission.platformRunId!)!.debited);
    const total = admissions.reduce((sum, admission) => sum + admission.costMicros, 0n);
    expect(total).toBeGreaterThan(0n);
    const usage = await appDb!.prisma.tenantUsage.findMany();
    expect(usage.reduce((sum, row) => sum + row.costMicros, 0n)).toBe(total);

    // The apps' metrics answer the scrape (the chat's own counters: inlay_app_*).
    const appMetrics = await Promise.all(
      cluster!.apps.map(async (app) => (await fetch(`${app.probeUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text()),
    );
    for (const text of appMetrics) expect(text).toMatch(/^inlay_app_chat_streams_open \d+$/m);

    const reconnects = streams.reduce((sum, { stream }) => sum + stream.reconnects, 0);
    // The figures an operator asks for; a benchmark's, not an assertion (the machine is shared). A
    // resumed pass continues the cut-off step where its stream was (runtime/partial-turn.ts): the gap
    // is the hand-back's re-claim and the continued call's first word.
    console.info(
      `rolling restart: ${streams.length} runs and ${turns.length} chat turns completed whole in ${Math.round((Date.now() - started) / 1000)} s; ` +
        `largest gap an API client saw ${largestGap} ms, a chat ${largestChatGap} ms; ${reconnects} reconnects, ${chatReattaches} chat reattachments; ` +
        `${resumed} hand-backs resumed; drains ${drains.map(({ name, ms }) => `${name} ${ms} ms`).join(", ")}`,
    );
  }, 420_000);

  it("reported no unexpected exit of any process, and no warning of a listener leak", () => {
    expect(logs.filter((line) => line.includes("exited unexpectedly"))).toEqual([]);
    // 30 chat streams on two apps each listen for their app's drain: expected, not a leak.
    expect(logs.filter((line) => line.includes("MaxListenersExceededWarning"))).toEqual([]);
  });
});

describe("npm run cluster", () => {
  it("fails at once, naming it, when nginx is missing or PostgreSQL does not answer", async () => {
    const base = { web: 1, workers: 1, port: 0, redisUrl, env: { NODE_ENV: "development" } as NodeJS.ProcessEnv, onLog: () => {} };
    const started = Date.now();
    await expect(startCluster({ ...base, databaseUrl: database.url, nginxPath: "/nonexistent/nginx" })).rejects.toThrow(
      "nginx is not installed at /nonexistent/nginx",
    );
    // A port where nothing listens (the kernel's pick, closed again).
    const closed = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo;
        server.close(() => resolve(port));
      });
    });
    await expect(startCluster({ ...base, databaseUrl: `postgres://postgres@127.0.0.1:${closed}/inlay` })).rejects.toThrow(
      `PostgreSQL at 127.0.0.1:${closed}/inlay does not answer`,
    );
    // Before any process was started: no instance's start-up or time-out was waited for.
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("prints its ready line, serves through nginx, and stops every child on SIGTERM", async () => {
    const cli = spawn(process.execPath, ["--import", "tsx", "server/cluster/cli.ts", "--web", "1", "--workers", "1", "--port", "0"], {
      env: {
        // eslint-disable-next-line no-restricted-properties -- the CLI inherits the test's environment
        ...process.env,
        NODE_ENV: "development",
        LOG_LEVEL: "warn",
        DATABASE_POOL_MAX: "5",
        DATABASE_URL: database.url,
        REDIS_URL: redisUrl,
        RATE_LIMIT_KEY_PREFIX: `cluster-cli-test-${randomUUID()}`,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const exited = new Promise<number | null>((resolve) => cli.once("exit", (code) => resolve(code)));
    let pids: number[] = [];
    const isAlive = (pid: number) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    try {
      const stderr: string[] = [];
      createInterface({ input: cli.stderr! }).on("line", (line) => stderr.push(line));
      const ready = await new Promise<string>((resolve, reject) => {
        createInterface({ input: cli.stdout! }).once("line", resolve);
        void exited.then((code) => reject(new Error(`npm run cluster exited with ${code}: ${stderr.join("\n")}`)));
      });
      expect(ready).toMatch(/^cluster ready on http:\/\/127\.0\.0\.1:\d+\/api\/v2$/);
      const baseUrl = ready.slice("cluster ready on ".length);
      expect((await fetch(`${baseUrl}/openapi.json`)).status).toBe(200);
      pids = stderr.flatMap((line) => /^cluster: (web|worker)-\d+ pid (\d+)/.exec(line)?.[2] ?? []).map(Number);
      expect(pids).toHaveLength(2);

      cli.kill("SIGTERM");
      expect(await exited).toBe(0);
      expect(pids.filter(isAlive)).toEqual([]);
      expect(await fetch(`${baseUrl}/openapi.json`).then(() => "answered", () => "refused")).toBe("refused");
    } finally {
      // Only if the test failed midway: leave nothing running.
      if (cli.exitCode === null && cli.signalCode === null) cli.kill("SIGKILL");
      for (const pid of pids.filter(isAlive)) process.kill(pid, "SIGKILL");
    }
  }, 180_000);
});
