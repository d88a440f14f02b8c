// Run benchmarks, each against a floor measured in the same run (a bare node:http server in the
// benchmark's server process, run-servers.ts) and the targets they report, never enforce:
// - time to first token through the platform (POST /runs streaming `::words 200`) at 1, 50 and 200
//   concurrent streams: at 200, p50 within +25 ms and p99 within +100 ms of the bare server's; at 1,
//   p50 within +3 ms;
// - 1,000 concurrent streaming runs held, frame delay (arrival vs what `::delay` makes expected)
//   p99 <= 50 ms;
// - run creation with stream=false on PostgreSQL (a database created on 127.0.0.1:5432 and dropped
//   after): >= 1,000 runs/s with p99 <= 25 ms; its floors are a bare server making one INSERT a request
//   and one keeping a durable run in the fewest writes (its row, its frames, its end);
// - scale-out (PostgreSQL): run creation and held streams with 1 web + 1 worker against 1 web + 2
//   workers, as ratios.
// BENCH_ROLES=split (PostgreSQL only) runs the platform as one web and one worker process; the default
// is one process in role all. Workers may execute RUN_WORKER_CONCURRENCY runs at once (1,000 unless set).
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import http from "node:http";
import path from "node:path";
import { createInterface } from "node:readline";
import { performance } from "node:perf_hooks";
import { streamText } from "ai";
import autocannon from "autocannon";
import pg from "pg";
import { createSimModel } from "@/server/platform/models/sim";

export interface Target {
  /** How the platform runs: "all" (one process) or "1 web + N workers". */
  roles: string;
  base: string;
  /** A bare HTTP server streaming the sim model (run-servers.ts): no platform, same process. */
  bareBase: string;
  key: string;
  agentId: number;
  database: string;
  /** The web (or all) process; it also serves the bare floor. */
  child: ChildProcess;
  workers: ChildProcess[];
}

// eslint-disable-next-line no-restricted-properties -- benchmark switch, not app configuration
const POSTGRES_SERVER = process.env.BENCH_POSTGRES_SERVER ?? "postgres://postgres@127.0.0.1:5432/postgres";
// eslint-disable-next-line no-restricted-properties -- benchmark switch, not app configuration
const ROLES = process.env.BENCH_ROLES ?? "all";
if (ROLES !== "all" && ROLES !== "split") throw new Error(`BENCH_ROLES must be all or split, got "${ROLES}"`);
/** Worker processes beside the web process by default: 0 runs the platform as one process in role all. */
const DEFAULT_WORKERS = ROLES === "split" ? 1 : 0;
// Enough for runs-held's 1,000 streams at once (the platform's default is 200 a worker).
// eslint-disable-next-line no-restricted-properties -- benchmark switch, not app configuration
const WORKER_CONCURRENCY = process.env.RUN_WORKER_CONCURRENCY ?? "1000";

// As many sockets as there are open streams; a new connection per run (keep-alive reuse raced the
// server closing idle sockets: "socket hang up").
const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });

function spawnServer(env: Record<string, string>): { child: ChildProcess; ready: Promise<string> } {
  // BENCH_CPU_PROF=<dir> writes each server process's CPU profile there (node --cpu-prof) when it stops.
  // eslint-disable-next-line no-restricted-properties -- benchmark switch, not app configuration
  const profile = process.env.BENCH_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const child = spawn(process.execPath, [...profile, "--import", "tsx", path.join(import.meta.dirname, "run-servers.ts")], {
    stdio: ["ignore", "pipe", "inherit"],
    env: {
      // eslint-disable-next-line no-restricted-properties -- the child inherits the benchmark's environment; BENCH_LOG_LEVEL shows its errors
      ...process.env,
      // eslint-disable-next-line no-restricted-properties -- as above
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? "silent",
      RUN_WORKER_CONCURRENCY: WORKER_CONCURRENCY,
      ...env,
    },
  });
  const ready = new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once("line", resolve);
    child.once("exit", (code) => reject(new Error(`bench server exited with ${code}`)));
  });
  return { child, ready };
}

/**
 * Starts the platform: one process in role all (workers = 0), or a web process and `workers` worker
 * processes on the same PostgreSQL database. The web process starts first: it migrates the database.
 */
export async function startServer(databaseUrl?: string, workers = DEFAULT_WORKERS): Promise<Target> {
  if (workers > 0 && !databaseUrl) throw new Error("web and worker processes need PostgreSQL: BENCH_ROLES=split needs BENCH_DATABASE=postgres");
  const database: Record<string, string> = databaseUrl ? { BENCH_DATABASE_URL: databaseUrl } : {};
  const web = spawnServer({ ...database, BENCH_ROLE: workers > 0 ? "web" : "all" });
  const started = JSON.parse(await web.ready) as Omit<Target, "child" | "workers" | "roles">;
  const workerProcesses = Array.from({ length: workers }, () => spawnServer({ ...database, BENCH_ROLE: "worker" }));
  await Promise.all(workerProcesses.map((worker) => worker.ready));
  const roles = workers > 0 ? `1 web + ${workers} worker${workers === 1 ? "" : "s"}` : "all";
  return { ...started, roles, child: web.child, workers: workerProcesses.map((worker) => worker.child) };
}

export async function stopServer(target: Target) {
  await Promise.all(
    [target.child, ...target.workers].map((child) => {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      return exited;
    }),
  );
}

/** Runs `work` against a database created on BENCH_POSTGRES_SERVER for it and dropped after. */
export async function withPostgresDatabase<T>(work: (url: string) => Promise<T>): Promise<T> {
  const name = `inlay_bench_${randomBytes(5).toString("hex")}`;
  const admin = new pg.Client({ connectionString: POSTGRES_SERVER });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(POSTGRES_SERVER);
  url.pathname = `/${name}`;
  try {
    return await work(url.toString());
  } finally {
    const client = new pg.Client({ connectionString: POSTGRES_SERVER });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await client.end();
  }
}

export const percentile = (values: number[], p: number) => {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};
/** The middle value (the mean of the middle two for an even count). */
export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const ms = (value: number) => value.toFixed(2);
const verdict = (ok: boolean) => (ok ? "ok" : "MISSES TARGET");

export interface StreamTimes {
  /** ms from sending the request to the first token frame. */
  firstToken: number;
  /** performance.now() at each token frame. */
  deltas: number[];
  done: boolean;
}

/** What an SSE frame is to the benchmark: a token, the end of the run, or neither. */
export type FrameKind = "token" | "done" | undefined;

/**
 * POSTs `body` to `url` and reads the SSE answer as it arrives, timing each frame `classify` calls a
 * token. The one client of every run benchmark (Inlay, the bare floor and the peers of peer-runs.ts).
 */
export function streamSse(
  url: string,
  headers: Record<string, string>,
  body: string,
  classify: (event: string | undefined, data: string) => FrameKind,
): Promise<StreamTimes> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const times: StreamTimes = { firstToken: NaN, deltas: [], done: false };
    const request = http.request(url, { method: "POST", agent, headers: { "content-type": "application/json", ...headers } }, (response) => {
      if (response.statusCode !== 200) {
        response.resume();
        reject(new Error(`POST ${new URL(url).pathname} answered ${response.statusCode}`));
        return;
      }
      response.setEncoding("utf8");
      let buffer = "";
      response.on("data", (chunk: string) => {
        const now = performance.now();
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf("\n\n")) !== -1) {
          const lines = buffer.slice(0, end).split("\n");
          buffer = buffer.slice(end + 2);
          const data = lines.find((line) => line.startsWith("data: "));
          if (!data) continue;
          const event = lines.find((line) => line.startsWith("event: "))?.slice(7);
          const kind = classify(event, data.slice(6));
          if (kind === "token") {
            if (times.deltas.length === 0) times.firstToken = now - started;
            times.deltas.push(now);
          } else if (kind === "done") {
            times.done = true;
          }
        }
      });
      response.on("end", () => resolve(times));
      response.on("error", reject);
    });
    request.on("error", reject);
    request.end(body);
  });
}

/** Inlay's frames (and the bare floor's, which mimics them). */
export function inlayFrame(_event: string | undefined, data: string): FrameKind {
  const frame = JSON.parse(data) as { type: string };
  return frame.type === "content_block_delta" ? "token" : frame.type === "done" ? "done" : undefined;
}

/** POST /runs streaming, reading SSE frames as they arrive. */
export function streamRun(target: Target, message: string, url = `${target.base}/runs`): Promise<StreamTimes> {
  return streamSse(url, { authorization: `Bearer ${target.key}` }, JSON.stringify({ teammate_id: target.agentId, message }), inlayFrame);
}

/** The sim model's own first token, in this process: the floor any platform adds to. */
async function simFirstToken(message: string): Promise<number> {
  const started = performance.now();
  const result = streamText({ model: createSimModel(), messages: [{ role: "user", content: message }] });
  let first = NaN;
  for await (const part of result.fullStream) {
    if (part.type === "text-delta" && Number.isNaN(first)) first = performance.now() - started;
  }
  return first;
}

export async function rounds<T>(concurrency: number, count: number, work: () => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let round = 0; round < count; round++) out.push(...(await Promise.all(Array.from({ length: concurrency }, work))));
  return out;
}

export async function runsTimeToFirstToken(databaseUrl?: string): Promise<void> {
  const target = await startServer(databaseUrl);
  const message = "::words 200";
  try {
    await rounds(10, 2, () => streamRun(target, message)); // warm up (JIT, pools)
    await rounds(10, 2, () => simFirstToken(message));
    await rounds(10, 2, () => streamRun(target, message, target.bareBase));
    const rows: Record<string, Record<string, string>> = {};
    const verdicts: string[] = [];
    for (const [concurrency, count] of [
      [1, 40],
      [50, 4],
      [200, 3],
    ] as const) {
      const base = await rounds(concurrency, count, () => simFirstToken(message));
      const bare = (await rounds(concurrency, count, () => streamRun(target, message, target.bareBase))).map((times) => times.firstToken);
      const through = (await rounds(concurrency, count, () => streamRun(target, message))).map((times) => times.firstToken);
      const overBare50 = percentile(through, 50) - percentile(bare, 50);
      const overBare99 = percentile(through, 99) - percentile(bare, 99);
      rows[`${concurrency} stream${concurrency === 1 ? "" : "s"}`] = {
        "sim p50 ms": ms(percentile(base, 50)),
        "sim p99 ms": ms(percentile(base, 99)),
        "bare HTTP p50 ms": ms(percentile(bare, 50)),
        "bare HTTP p99 ms": ms(percentile(bare, 99)),
        "platform p50 ms": ms(percentile(through, 50)),
        "platform p99 ms": ms(percentile(through, 99)),
        "over bare p50 ms": ms(overBare50),
        "over bare p99 ms": ms(overBare99),
      };
      if (concurrency === 1) verdicts.push(`p50 over the bare server at 1 stream +${ms(overBare50)} ms (target <= +3 ms): ${verdict(overBare50 <= 3)}`);
      if (concurrency === 200) {
        verdicts.push(`p50 over the bare server at 200 streams +${ms(overBare50)} ms (target <= +25 ms): ${verdict(overBare50 <= 25)}`);
        verdicts.push(`p99 over the bare server at 200 streams +${ms(overBare99)} ms (target <= +100 ms): ${verdict(overBare99 <= 100)}`);
      }
    }
    console.log(`\ntime to first token, POST /runs streaming "::words 200" (${target.database}, ${target.roles})`);
    console.table(rows);
    for (const line of verdicts) console.log(line);
  } finally {
    await stopServer(target);
  }
}

interface HeldStats {
  /** Frame delay: how late each word arrived against the first word's arrival plus i × delay. */
  lateness: number[];
  /** How much longer than the delay each gap between two words was. */
  gaps: number[];
  firstTokens: number[];
  complete: number;
  failed: number;
  firstFailure?: string;
  elapsedMs: number;
}

const HELD_DELAY_MS = 100;
const HELD_WORDS = 30;

/** `streams` streaming runs at once of `::delay 100` × 30 words, through `url` (the platform's by default). */
async function holdStreams(target: Target, streams: number, url?: string): Promise<HeldStats> {
  const started = performance.now();
  const results = await Promise.allSettled(
    Array.from({ length: streams }, () => streamRun(target, `::delay ${HELD_DELAY_MS}\n::words ${HELD_WORDS}`, url)),
  );
  const elapsedMs = performance.now() - started;
  const ok = results.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
  const rejected = results.find((result) => result.status === "rejected");
  // The sim keeps its own clock (docs/sim-model.md, `::delay`), so the lateness is the server's
  // delivery lag, not the model slowed down by a busy process.
  return {
    lateness: ok.flatMap((times) => times.deltas.map((at, index) => at - (times.deltas[0]! + index * HELD_DELAY_MS))),
    gaps: ok.flatMap((times) => times.deltas.slice(1).map((at, index) => at - times.deltas[index]! - HELD_DELAY_MS)),
    firstTokens: ok.map((times) => times.firstToken),
    complete: ok.filter((times) => times.done && times.deltas.length === HELD_WORDS).length,
    failed: results.length - ok.length,
    firstFailure: rejected ? String(rejected.reason) : undefined,
    elapsedMs,
  };
}

const spread = (values: number[]) => ({
  "p50 ms": ms(percentile(values, 50)),
  "p99 ms": ms(percentile(values, 99)),
  "max ms": ms(values.reduce((max, value) => Math.max(max, value), -Infinity)),
});

export async function runsHeldStreams(databaseUrl?: string, streams = 1_000): Promise<void> {
  const target = await startServer(databaseUrl);
  try {
    await rounds(20, 1, () => streamRun(target, "::words 5"));
    await rounds(20, 1, () => streamRun(target, "::words 5", target.bareBase));
    const bare = await holdStreams(target, streams, target.bareBase);
    const platform = await holdStreams(target, streams);
    console.log(
      `\n${streams} concurrent streaming runs, "::delay ${HELD_DELAY_MS}" × ${HELD_WORDS} words (${target.database}, ${target.roles}), ` +
        `${(platform.elapsedMs / 1000).toFixed(1)} s; the bare server's ${(bare.elapsedMs / 1000).toFixed(1)} s`,
    );
    console.table({
      "frame delay, bare HTTP": spread(bare.lateness),
      "frame delay, platform": spread(platform.lateness),
      "extra gap between frames, bare HTTP": spread(bare.gaps),
      "extra gap between frames, platform": spread(platform.gaps),
      "first token, bare HTTP": spread(bare.firstTokens),
      "first token, platform": spread(platform.firstTokens),
    });
    console.log(`runs complete with every word: ${platform.complete}/${streams}; failed requests: ${platform.failed} (bare: ${bare.complete}, ${bare.failed})`);
    if (platform.firstFailure) console.log(`first failure: ${platform.firstFailure}`);
    const p99 = percentile(platform.lateness, 99);
    console.log(
      `frame delay p99 ${ms(p99)} ms, the bare server's ${ms(percentile(bare.lateness, 99))} ms (target <= 50 ms, all ${streams} held): ` +
        verdict(p99 <= 50 && platform.complete === streams),
    );
  } finally {
    await stopServer(target);
  }
}

interface Throughput {
  perSecond: number;
  p50: number;
  p99: number;
  failed: number;
}

/** autocannon on POST `url` for 2 s of warm-up and 6 s measured, 10 connections. */
async function postThroughput(target: Target, url: string): Promise<Throughput> {
  const options = {
    url,
    method: "POST" as const,
    headers: { authorization: `Bearer ${target.key}`, "content-type": "application/json" },
    body: JSON.stringify({ teammate_id: target.agentId, message: "hello", stream: false }),
    connections: 10,
  };
  await autocannon({ ...options, duration: 2 });
  const result = await autocannon({ ...options, duration: 6 });
  return { perSecond: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99, failed: result.non2xx + result.errors };
}

const throughputRow = (result: Throughput) => ({ "runs/s": result.perSecond, "p50 ms": result.p50, "p99 ms": result.p99, failed: result.failed });

export async function runsCreation(): Promise<void> {
  await withPostgresDatabase(async (url) => {
    const target = await startServer(url);
    try {
      const floor = await postThroughput(target, `${target.bareBase}/insert`);
      const runFloor = await postThroughput(target, `${target.bareBase}/run`);
      const platform = await postThroughput(target, `${target.base}/runs`);
      console.log(`\nrun creation, POST /runs stream=false (postgres, ${target.roles}, 10 connections, 6 s)`);
      console.table({
        "bare HTTP, one INSERT": throughputRow(floor),
        "bare HTTP, a durable run (3 writes)": throughputRow(runFloor),
        platform: throughputRow(platform),
      });
      console.log(
        `throughput ${platform.perSecond}/s, ${((platform.perSecond / floor.perSecond) * 100).toFixed(1)} % of the floor's ${floor.perSecond}/s, ` +
          `${((platform.perSecond / runFloor.perSecond) * 100).toFixed(1)} % of the durable run's ${runFloor.perSecond}/s ` +
          `(target >= 1,000/s): ${verdict(platform.perSecond >= 1_000 && platform.failed === 0)}`,
      );
      console.log(`p99 ${platform.p99} ms, the floor's ${floor.p99} ms (target <= 25 ms): ${verdict(platform.p99 <= 25)}`);
    } finally {
      await stopServer(target);
    }
  });
}

/**
 * The same load on 1 web + 1 worker and on 1 web + 2 workers (each on a database of its own, one
 * after the other), as ratios: run creation (stream=false) and `streams` held streaming runs.
 */
export async function scaleOut(streams = 400): Promise<void> {
  const measured: { roles: string; create: Throughput; held: HeldStats }[] = [];
  for (const workers of [1, 2]) {
    await withPostgresDatabase(async (url) => {
      const target = await startServer(url, workers);
      try {
        await rounds(20, 1, () => streamRun(target, "::words 5"));
        const create = await postThroughput(target, `${target.base}/runs`);
        const held = await holdStreams(target, streams);
        measured.push({ roles: target.roles, create, held });
      } finally {
        await stopServer(target);
      }
    });
  }
  const [one, two] = measured as [(typeof measured)[number], (typeof measured)[number]];
  const row = ({ create, held }: (typeof measured)[number]) => ({
    "create runs/s": create.perSecond,
    "create p50 ms": create.p50,
    "create p99 ms": create.p99,
    "held frame delay p50 ms": ms(percentile(held.lateness, 50)),
    "held frame delay p99 ms": ms(percentile(held.lateness, 99)),
    "held first token p50 ms": ms(percentile(held.firstTokens, 50)),
    "held first token p99 ms": ms(percentile(held.firstTokens, 99)),
    "held complete": `${held.complete}/${streams}`,
    failed: create.failed + held.failed,
  });
  const ratio = (a: number, b: number) => (b / a).toFixed(2);
  console.log(`\nscale-out (postgres): run creation stream=false (10 connections, 6 s) and ${streams} held streams, "::delay ${HELD_DELAY_MS}" × ${HELD_WORDS} words`);
  console.table({ [one.roles]: row(one), [two.roles]: row(two) });
  console.log(`run creation, 2 workers / 1 worker: ${ratio(one.create.perSecond, two.create.perSecond)}x the runs/s, ${ratio(one.create.p99, two.create.p99)}x the p99`);
  console.log(
    `held streams, 2 workers / 1 worker: ${ratio(percentile(one.held.lateness, 99), percentile(two.held.lateness, 99))}x the frame delay p99, ` +
      `${ratio(percentile(one.held.firstTokens, 50), percentile(two.held.firstTokens, 50))}x the first token p50`,
  );
}
