// The whole product as deployed: `startCluster` with 2 web instances and 2 workers of the compiled
// platform on one PostgreSQL database and Redis, and the framework's app twice (`next start` on the
// production build, on a database of its own, a customer of the platform with its own account), behind
// one nginx that sends /api/v2/ to the platform and the rest to the apps, at the shipped settings.
// Runs after `npm run build` (tests/run-all.mjs). The platform's own cluster behaviours (a stream through
// either instance, a killed worker or web instance, shared limits) are tests/integration/cluster's.
import { randomUUID } from "node:crypto";
import { existsSync, writeFileSync } from "node:fs";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPlatformClient, type RunFrame } from "@inlay/core/platform-client";
import { startCluster, type Cluster } from "@/server/cluster/start-cluster";
import { EMBED_ORIGIN_HEADER, EMBED_TOKEN_HEADER } from "@/server/framework/chat/framework-context";
import { setAllowedOrigins } from "@/server/framework/embed/origins";
import { createEmbedSecret } from "@/server/framework/embed/secrets";
import { setTenantLimits } from "@/server/framework/tenancy/limits";
import { verifyAccountEmail } from "@/server/platform/services/account/operator";
import { openDatabase, type Database } from "@/server/shared/db";
import { chatTurn, textOfMessage, type ChatTurn } from "../helpers/chat-stream";
import { createEmptyPostgresDatabase } from "../helpers/database";
import { call, newAccount as newAccountAt } from "../helpers/cluster-client";

// eslint-disable-next-line no-restricted-properties -- test infrastructure, not app configuration
const redisUrl = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
// Above what the apps' account asks in the rolling restart (30 chat turns, their reattachments and
// the ledger's reads).
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

/** A new account through nginx. */
const newAccount = () => newAccountAt(nginx());

const wordsOf = (text: string) => text.trim().split(/\s+/);

describe("the whole product: 2 apps, 2 web instances and 2 workers behind nginx", () => {
  // docs/design.md, Operations: stopping is a normal event. Each process of the whole product in turn
  // gets SIGTERM (an app ends its chat streams marked draining, a web one ends its run streams, a worker
  // hands its runs back) and is replaced, while 30 runs stream to API clients and 30 chat turns stream
  // to embedded chats through the apps. The clients resume by themselves (Last-Event-ID; the chat's
  // reattachment) and must see every word once; the apps' run ledger must equal the platform's.
  it("loses nothing in a rolling restart of 2 apps, 2 web and 2 workers: 30 API runs and 30 chat turns streaming", async () => {
    const RUNS_PER_ACCOUNT = 2;
    // 90 s a run: longer than six drains and restarts take on two cores (about 40 s), so every
    // restart meets live streams.
    const WORDS = 300;
    const CHAT_USERS = 15;
    const TURNS_PER_USER = 2;
    // 15 accounts: each one's requests (its runs, their reconnects) stay within the test's allowance.
    const accounts = await Promise.all(Array.from({ length: 15 }, () => newAccount()));
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

    const drains: { name: string; ms: number; at: number }[] = [];
    const order = [0, 1].flatMap((i) => [cluster!.apps[i]!, cluster!.web[i]!, cluster!.workers[i]!]);
    for (const instance of order) {
      const t = Date.now();
      await cluster!.kill(instance, "SIGTERM");
      drains.push({ name: instance.name, ms: Date.now() - t, at: t });
      await cluster!.replace(instance);
    }
    // Which restart a gap followed (the last SIGTERM before the gap began), for the printed figures.
    const gapsByRestart = new Map<string, { api: number; chat: number }>();
    const noteGaps = (arrivals: number[], kind: "api" | "chat") => {
      for (let i = 1; i < arrivals.length; i++) {
        const name = drains.filter((drain) => drain.at <= arrivals[i]!).at(-1)?.name ?? "before";
        const entry = gapsByRestart.get(name) ?? { api: 0, chat: 0 };
        entry[kind] = Math.max(entry[kind], arrivals[i]! - arrivals[i - 1]!);
        gapsByRestart.set(name, entry);
      }
    };
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
      noteGaps(arrivals, "api");
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
      noteGaps(turn.arrivals, "chat");
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
        `${resumed} hand-backs resumed; drains ${drains.map(({ name, ms }) => `${name} ${ms} ms`).join(", ")}; ` +
        `largest gaps (API/chat) after each restart: ${[...gapsByRestart].map(([name, gap]) => `${name} ${gap.api}/${gap.chat} ms`).join(", ")}`,
    );
  }, 420_000);

  it("reported no unexpected exit of any process, and no warning of a listener leak", () => {
    expect(logs.filter((line) => line.includes("exited unexpectedly"))).toEqual([]);
    // 30 chat streams on two apps each listen for their app's drain: expected, not a leak.
    expect(logs.filter((line) => line.includes("MaxListenersExceededWarning"))).toEqual([]);
  });
});
