// The scale-out deployment for real: `startCluster` (npm run cluster) with 2 web instances and 2
// workers as child processes on one PostgreSQL database and Redis, behind nginx. Every process runs
// at the shipped lease settings, so the worker-kill test measures the takeover a deployment gets. The
// rolling restart of every process under load is the whole product's (tests/product/whole-product.test.ts).
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createServer, type AddressInfo } from "node:net";
import { createInterface } from "node:readline";
import { setTimeout as delay } from "node:timers/promises";
import { EventSourceParserStream } from "eventsource-parser/stream";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCluster, type Cluster, type Instance } from "@/server/cluster/start-cluster";
import { compiledClusterEntry, compiledPlatformEntry } from "../../helpers/compiled-platform";
import { createEmptyPostgresDatabase } from "../../helpers/database";
import { call, newAccount as newAccountAt, type Answer } from "../../helpers/cluster-client";
import { readFrames, textOf, type Frame } from "../../helpers/sse";

// eslint-disable-next-line no-restricted-properties -- test infrastructure, not app configuration
const redisUrl = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const ACCOUNT_PER_MINUTE = 30;
const METRICS_TOKEN = `metrics-${randomUUID()}`;

let database: Awaited<ReturnType<typeof createEmptyPostgresDatabase>>;
let cluster: Cluster | undefined;
const logs: string[] = [];

beforeAll(async () => {
  database = await createEmptyPostgresDatabase();
  cluster = await startCluster({
    web: 2,
    workers: 2,
    port: 0,
    entry: compiledPlatformEntry(),
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
    },
    onLog: (line) => logs.push(line),
  });
}, 180_000);

afterAll(async () => {
  await cluster?.stop();
  await database?.drop();
}, 60_000);

const nginx = () => cluster!.baseUrl;
const webA = () => cluster!.web[0]!;
const webB = () => cluster!.web[1]!;

/** A new account through nginx. */
const newAccount = () => newAccountAt(nginx());

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

  it("reported no unexpected exit of any process", () => {
    expect(logs.filter((line) => line.includes("exited unexpectedly"))).toEqual([]);
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
    const cli = spawn(process.execPath, [...compiledClusterEntry(), "--web", "1", "--workers", "1", "--port", "0"], {
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
