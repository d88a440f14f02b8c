// The database going away, for real: a cluster of 2 web instances and 2 workers (startCluster, behind
// nginx) on a PostgreSQL server of this file's own (tests/helpers/postgres-server.ts), which the tests
// stop and start while runs stream; last, two of its processes are moved behind PgBouncer in
// transaction mode. One cluster for the scenarios in turn: each leaves it whole for the next.
// Timings are printed, not asserted (the machine is shared).
import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPlatformClient, type RunFrame } from "@inlay/core/platform-client";
import { startCluster, type Cluster, type Instance } from "@/server/cluster/start-cluster";
import { compiledPlatformEntry } from "../../helpers/compiled-platform";
import { openFrameworkDatabase } from "@/server/framework/startup";
import { call as clusterCall, newAccount as clusterAccount } from "../../helpers/cluster-client";
import { startPgBouncer, type PgBouncer } from "../../helpers/pgbouncer";
import { pollUntil } from "../../helpers/poll";
import { createPostgresServer, type PostgresServer, type ShutdownMode } from "../../helpers/postgres-server";

// eslint-disable-next-line no-restricted-properties -- test infrastructure, not app configuration
const redisUrl = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const CONNECT_TIMEOUT_MS = 2_000;
const STATEMENT_TIMEOUT_MS = 3_000;

let server: PostgresServer | undefined;
let bouncer: PgBouncer | undefined;
let cluster: Cluster | undefined;
let databaseUrl: string;
const logs: string[] = [];

const clusterEnv = (prefix: string): NodeJS.ProcessEnv => ({
  // eslint-disable-next-line no-restricted-properties -- the children inherit the test's environment
  ...process.env,
  NODE_ENV: "development",
  LOG_LEVEL: "warn",
  DATABASE_POOL_MAX: "5",
  DATABASE_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
  DATABASE_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
  RATE_LIMIT_KEY_PREFIX: `${prefix}-${randomUUID()}`,
  PLATFORM_RATE_LIMIT_SIGNUP_PER_MINUTE: "100",
});

beforeAll(async () => {
  const started = Date.now();
  server = await createPostgresServer();
  databaseUrl = await server.createDatabase("inlay");
  const serverUp = Date.now();
  cluster = await startCluster({
    web: 2,
    workers: 2,
    port: 0,
    entry: compiledPlatformEntry(),
    databaseUrl,
    redisUrl,
    env: clusterEnv("db-faults"),
    onLog: (line) => logs.push(line),
  });
  console.info(`set-up: PostgreSQL server of its own in ${serverUp - started} ms, the cluster in ${Date.now() - serverUp} ms`);
}, 180_000);

afterAll(async () => {
  await cluster?.stop();
  await bouncer?.close();
  await server?.remove();
}, 60_000);

const everyProcess = () => [...cluster!.web, ...cluster!.workers];

async function readyz(instance: Instance): Promise<{ status: number; body: any }> {
  try {
    const answer = await fetch(`${instance.probeUrl}/readyz`, { signal: AbortSignal.timeout(5_000) });
    return { status: answer.status, body: await answer.json() };
  } catch (error) {
    return { status: 0, body: String(error) };
  }
}

/** Waits until every process answers /readyz with `status`; returns how long that took. */
async function allReady(expected: 200 | 503, instances = everyProcess(), limitMs?: number): Promise<number> {
  const started = Date.now();
  await pollUntil(
    () => Promise.all(instances.map(readyz)),
    (answers) => answers.every((answer) => answer.status === expected),
    `every process's /readyz to answer ${expected}`,
    limitMs,
  );
  return Date.now() - started;
}

/** The settings of a process behind PgBouncer (transaction mode), its sessions straight to PostgreSQL. */
const pooledEnv = () => ({
  DATABASE_URL: bouncer!.url("inlay"),
  DATABASE_PREPARED_STATEMENTS: "false",
  // Named, so the test can tell these sessions from PgBouncer's.
  DATABASE_DIRECT_URL: `${databaseUrl}?application_name=inlay-direct`,
});

/** How often the instance logged that its database did not answer yet, since the log's `from`th line. */
const retriesOf = (name: string, from: number) =>
  logs.slice(from).filter((line) => line.startsWith(`[${name}]`) && line.includes("the database does not answer yet")).length;

// A request must be answered, not left hanging: past this it fails the test.
const ANSWER_MS = 20_000;
const call = (baseUrl: string, path: string, options: Parameters<typeof clusterCall>[2] = {}) => clusterCall(baseUrl, path, { timeoutMs: ANSWER_MS, ...options });
const newAccount = (baseUrl: string) => clusterAccount(baseUrl, { timeoutMs: ANSWER_MS });

const wordsOf = (text: string) => text.trim().split(/\s+/);

interface Streamed {
  runId: () => number;
  frames: RunFrame[];
  reconnects: () => number;
  /** Settles either way: a client's error, naming the run. */
  read: Promise<string | undefined>;
}

/** Starts a streamed run through `baseUrl` with a typed client that resumes by itself. */
async function streamRun(baseUrl: string, account: { key: string; agentId: number }, message: string): Promise<Streamed> {
  const client = createPlatformClient({ baseUrl, apiKey: account.key, maxRetries: 8 });
  const stream = await client.runs.create({ teammate_id: account.agentId, message, stream: true, permission_mode: "autonomous" });
  const frames: RunFrame[] = [];
  const read = (async () => {
    for await (const frame of stream) frames.push(frame);
  })().then(
    () => undefined,
    (error: unknown) => `run ${stream.runId}: ${error instanceof Error ? error.message : String(error)}`,
  );
  return { runId: () => stream.runId!, frames, reconnects: () => stream.reconnects, read };
}

/** Every word once, in order, the run completed and not interrupted: nothing lost, nothing repeated. */
async function expectWhole(baseUrl: string, key: string, streamed: Streamed, words: number) {
  const run = await call(baseUrl, `/runs/${streamed.runId()}`, { key });
  expect(run.body).toMatchObject({ status: "completed" });
  expect(run.body.metadata?.interrupted).toBeUndefined();
  expect(wordsOf(run.body.output)).toHaveLength(words);
  const text = streamed.frames.map((frame) => (frame.type === "content_block_delta" ? frame.delta.text : "")).join("");
  expect(text).toBe(run.body.output);
  expect(streamed.frames.filter((frame) => frame.type === "done")).toHaveLength(1);
  expect(streamed.frames.at(-1)).toMatchObject({ type: "done", completion_state: "completed" });
}

/**
 * A key revoked through web-1 is refused by web-2 well within the hot cache's 30 s: web-2 heard the
 * NOTIFY, so its LISTEN connection is back (a cached key would otherwise be served until it expires).
 */
async function expectRevocationHeard(account: { key: string }) {
  const [webA, webB] = cluster!.web;
  const created = await call(webA!.baseUrl!, "/keys", { key: account.key, body: { name: "after-restart" } });
  expect(created.status).toBe(201);
  expect((await call(webB!.baseUrl!, "/agents", { key: created.body.key })).status).toBe(200);
  expect((await call(webA!.baseUrl!, `/keys/${created.body.id}`, { key: account.key, method: "DELETE" })).status).toBe(204);
  await pollUntil(() => call(webB!.baseUrl!, "/agents", { key: created.body.key }), (answer) => answer.status === 401, "web-2 to hear the revocation", 10_000);
}

const resumesOf = (streamed: Streamed) => streamed.frames.filter((frame) => frame.type === "run_status" && frame.resumed).length;

describe("PostgreSQL going away under a cluster of 2 web instances and 2 workers", () => {
  for (const mode of ["fast", "immediate"] as ShutdownMode[]) {
    it(`keeps every streaming run whole across a restart (${mode} shutdown): reconnects, hands runs back, resumes`, async () => {
      const RUNS = 8;
      const WORDS = 100;
      const account = await newAccount(cluster!.baseUrl);
      const pids = everyProcess().map((instance) => instance.pid);
      const streams = await Promise.all(
        Array.from({ length: RUNS }, () => streamRun(cluster!.baseUrl, account, `::delay 40\n::words ${WORDS}`)),
      );
      // Every run has streamed a while before the database goes.
      await pollUntil(
        async () => streams.map((streamed) => streamed.frames.filter((frame) => frame.type === "content_block_delta").length),
        (counts) => counts.every((count) => count >= 10),
        "every run to stream 10 words",
      );

      const stopped = Date.now();
      await server!.stop(mode);
      const notReadyAfter = await allReady(503);
      // Every process tells why: the database check fails.
      for (const instance of everyProcess()) expect((await readyz(instance)).body.checks.database.ok).toBe(false);
      const away = Date.now() - stopped;
      await server!.start();
      const readyAgainAfter = await allReady(200);

      expect((await Promise.all(streams.map((streamed) => streamed.read))).filter(Boolean)).toEqual([]);
      for (const streamed of streams) await expectWhole(cluster!.baseUrl, account.key, streamed, WORDS);
      // The restart met runs mid-pass: they were handed back and resumed, not failed.
      const resumed = streams.reduce((sum, streamed) => sum + resumesOf(streamed), 0);
      expect(resumed).toBeGreaterThan(0);
      // The LISTEN connections are back too.
      await expectRevocationHeard(account);
      // No process exited: the same ones serve.
      expect(everyProcess().map((instance) => instance.pid)).toEqual(pids);
      expect(logs.filter((line) => line.includes("exited unexpectedly"))).toEqual([]);
      console.info(
        `PostgreSQL ${mode} restart: database away ${away} ms; every /readyz false ${notReadyAfter} ms after the stop, ` +
          `true again ${readyAgainAfter} ms after the start; ${RUNS} runs whole, ${resumed} resumes, ` +
          `${streams.reduce((sum, streamed) => sum + streamed.reconnects(), 0)} client reconnects`,
      );
    }, 60_000);
  }

  it("answers 503 with Retry-After, not a hang, while slow statements hold every pool connection", async () => {
    const account = await newAccount(cluster!.baseUrl);
    const web = cluster!.web[0]!;
    // Another session holds a lock the listing needs: every statement that reads agents waits on it,
    // holding its pool connection, until the statement timeout cancels it.
    const blocker = new pg.Client({ connectionString: databaseUrl });
    await blocker.connect();
    let answers: { status: number; headers: Headers; body: any; ms: number }[];
    try {
      await blocker.query("BEGIN");
      await blocker.query("LOCK TABLE platform_agents IN ACCESS EXCLUSIVE MODE");
      const started = Date.now();
      // Twice the pool (DATABASE_POOL_MAX=5): half wait on the lock, half for a connection.
      answers = await Promise.all(
        Array.from({ length: 10 }, async () => ({ ...(await call(web.baseUrl!, "/agents", { key: account.key })), ms: Date.now() - started })),
      );
    } finally {
      await blocker.query("ROLLBACK").catch(() => {});
      await blocker.end();
    }
    for (const answer of answers) {
      expect(answer.status).toBe(503);
      expect(Number(answer.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(answer.body.error).toMatchObject({ type: "api_error", code: 503, error_code: "database_unavailable", request_id: expect.stringMatching(/^req_/) });
    }
    // The lock gone, the same requests succeed at once.
    expect((await call(web.baseUrl!, "/agents", { key: account.key })).status).toBe(200);
    const times = answers.map((answer) => answer.ms).sort((a, b) => a - b);
    console.info(
      `pool held by slow statements (connect timeout ${CONNECT_TIMEOUT_MS} ms, statement timeout ${STATEMENT_TIMEOUT_MS} ms): ` +
        `10 requests answered 503 in ${times[0]}-${times.at(-1)} ms`,
    );
  }, 30_000);

  // The two processes started here come up behind PgBouncer (the next test's subject): one start of
  // two processes serves both tests, which CI's time asks for. Their sessions go straight to
  // PostgreSQL (DATABASE_DIRECT_URL), and it is those that wait for it first.
  it("starts processes while PostgreSQL is down (the app's start-up too): they wait, not ready, retrying with backoff, and start when it is up", async () => {
    bouncer = await startPgBouncer(server!, { poolSize: 10 });
    const web = cluster!.web[1]!;
    const worker = cluster!.workers[1]!;
    const appDatabaseUrl = await server!.createDatabase("inlay_app");
    await Promise.all([cluster!.kill(web), cluster!.kill(worker)]);
    await server!.stop("fast");
    const logsBefore = logs.length;
    const down = Date.now();
    let replacing: Promise<Instance[]> | undefined;
    // The app's start-up opens its database the same way (instrumentation.ts → startFramework).
    const appWaits: number[] = [];
    let appOpened = false;
    const appDatabase = openFrameworkDatabase({ url: appDatabaseUrl, connectTimeoutMs: CONNECT_TIMEOUT_MS }, (_error, retryInMs) => appWaits.push(retryInMs));
    void appDatabase.then(() => (appOpened = true), () => {});
    try {
      // The replacements bind the same ports and say they are not ready while the database is away.
      replacing = Promise.all([cluster!.replace(web, { env: pooledEnv() }), cluster!.replace(worker, { env: pooledEnv() })]);
      // Their start (loading the code) may take a while on a busy machine: a minute at most.
      await pollUntil(
        () => Promise.all([web, worker].map(readyz)),
        (answers) => answers.every((answer) => answer.status === 503 && answer.body.checks?.database?.ok === false),
        "both replacements to answer /readyz 503 for want of the database",
        60_000,
      );
      const health = await fetch(`${web.probeUrl}/healthz`);
      expect(health.status).toBe(200);
      const refused = await call(web.baseUrl!, "/agents");
      expect(refused.status).toBe(503);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(refused.body.error).toMatchObject({ type: "api_error", error_code: "database_unavailable" });
      // Each tried more than once (backoff), and said so.
      await pollUntil(
        async () => ["web-2", "worker-2"].map((name) => retriesOf(name, logsBefore)),
        (counts) => counts.every((count) => count >= 2),
        "both processes to retry twice",
      );
      // The app waits too, backing off, instead of failing its start-up.
      await pollUntil(async () => appWaits, (waits) => waits.length >= 2, "the app's start-up to retry twice");
      expect(appOpened).toBe(false);
      expect(appWaits[1]).toBeGreaterThan(appWaits[0]!);
    } finally {
      await server!.start();
    }
    const [newWeb, newWorker] = await replacing;
    const startedAfter = Date.now() - down;
    await allReady(200, [newWeb!, newWorker!]);
    expect(newWeb!.baseUrl).toBe(web.baseUrl);
    expect(newWorker!.probeUrl).toBe(worker.probeUrl);
    const app = await appDatabase;
    try {
      expect(await app.prisma.$queryRawUnsafe("select 1 as one")).toEqual([{ one: 1 }]);
    } finally {
      await app.close();
    }

    // The new web instance serves: a run through it completes.
    const account = await newAccount(newWeb!.baseUrl!);
    const streamed = await streamRun(newWeb!.baseUrl!, account, "::words 20");
    expect(await streamed.read).toBeUndefined();
    await expectWhole(newWeb!.baseUrl!, account.key, streamed, 20);
    console.info(
      `started while PostgreSQL was down: ready ${startedAfter} ms after the database went; ` +
        `retries logged: web ${retriesOf("web-2", logsBefore)}, worker ${retriesOf("worker-2", logsBefore)}`,
    );
  }, 120_000);

  it("serves behind PgBouncer in transaction mode with DATABASE_PREPARED_STATEMENTS=false and sessions on DATABASE_DIRECT_URL", async () => {
    const [webA, pooledWeb] = cluster!.web;
    const [otherWorker, pooledWorker] = cluster!.workers;
    expect(pooledWeb!.name).toBe("web-2");
    // Started behind PgBouncer by the test above; the other worker stops, so this one executes the run.
    await cluster!.kill(otherWorker!);
    await allReady(200, [pooledWeb!, pooledWorker!]);

    // A run admitted, executed and streamed behind PgBouncer: its frames reach the web instance's reader
    // through NOTIFY (sent by the writer's statement through PgBouncer, heard on the direct LISTEN).
    const account = await newAccount(pooledWeb!.baseUrl!);
    const streamed = await streamRun(pooledWeb!.baseUrl!, account, "::delay 10\n::words 40");
    expect(await streamed.read).toBeUndefined();
    await expectWhole(pooledWeb!.baseUrl!, account.key, streamed, 40);
    // A key revoked through another instance is refused here once its NOTIFY is heard.
    const created = await call(webA!.baseUrl!, "/keys", { key: account.key, body: { name: "pooled" } });
    expect(created.status).toBe(201);
    expect((await call(pooledWeb!.baseUrl!, "/agents", { key: created.body.key })).status).toBe(200);
    expect((await call(webA!.baseUrl!, `/keys/${created.body.id}`, { key: account.key, method: "DELETE" })).status).toBe(204);
    await pollUntil(
      () => call(pooledWeb!.baseUrl!, "/agents", { key: created.body.key }),
      (answer) => answer.status === 401,
      "the instance behind PgBouncer to refuse the revoked key",
    );
    // Their sessions (LISTEN, the job queue) are on the direct URL: the web's and the worker's.
    const admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    try {
      const { rows } = await admin.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE application_name = 'inlay-direct'");
      expect(rows.length).toBeGreaterThanOrEqual(2);
    } finally {
      await admin.end();
    }
    // Named prepared statements through PgBouncer would fail ("prepared statement … does not exist").
    expect(logs.filter((line) => /prepared statement/.test(line))).toEqual([]);
  }, 60_000);

  it("reported no unexpected exit of any process, no error and no failed run", () => {
    expect(logs.filter((line) => line.includes("exited unexpectedly"))).toEqual([]);
    // The processes log at warn: every outage above left warnings, but no run failed and nothing crashed.
    expect(logs.filter((line) => / ERROR | FATAL |run failed|run executor crashed/.test(line))).toEqual([]);
  });
});
