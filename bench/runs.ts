// Run benchmarks, each against a baseline or an expectation measured in the same run:
// - time to first token through the platform (POST /runs streaming `::words 200`) at 1, 50 and 200
//   concurrent streams, as ms added over the sim model's own first token (streamText in-process);
//   targets p50 <= 2 ms and p99 <= 10 ms added at 200 streams;
// - 1,000 concurrent streaming runs held, frame delay (arrival vs what `::delay` makes expected)
//   p99 < 50 ms;
// - run creation with stream=false on PostgreSQL (a database created on 127.0.0.1:5432 and dropped
//   after): >= 500 runs/s with p99 < 25 ms.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import http from "node:http";
import path from "node:path";
import { createInterface } from "node:readline";
import { performance } from "node:perf_hooks";
import { streamText } from "ai";
import autocannon from "autocannon";
import pg from "pg";
import { createSimModel } from "@/server/platform/runtime/models/sim";

export interface Target {
  base: string;
  /** A bare HTTP server streaming the sim model (run-servers.ts): no platform, same process. */
  bareBase: string;
  key: string;
  agentId: number;
  database: string;
  child: ChildProcess;
}

// eslint-disable-next-line no-restricted-properties -- benchmark switch, not app configuration
const POSTGRES_SERVER = process.env.BENCH_POSTGRES_SERVER ?? "postgres://postgres@127.0.0.1:5432/postgres";

// As many sockets as there are open streams; a new connection per run (keep-alive reuse raced the
// server closing idle sockets: "socket hang up").
const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });

export async function startServer(databaseUrl?: string): Promise<Target> {
  // BENCH_CPU_PROF=<dir> writes the server's CPU profile there (node --cpu-prof) when it stops.
  // eslint-disable-next-line no-restricted-properties -- benchmark switch, not app configuration
  const profile = process.env.BENCH_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const child = spawn(process.execPath, [...profile, "--import", "tsx", path.join(import.meta.dirname, "run-servers.ts")], {
    stdio: ["ignore", "pipe", "inherit"],
    // eslint-disable-next-line no-restricted-properties -- the child inherits the benchmark's environment; BENCH_LOG_LEVEL shows its errors
    env: { ...process.env, LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? "silent", ...(databaseUrl ? { BENCH_DATABASE_URL: databaseUrl } : {}) },
  });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once("line", resolve);
    child.once("exit", (code) => reject(new Error(`bench server exited with ${code}`)));
  });
  return { ...(JSON.parse(line) as Omit<Target, "child">), child };
}

export async function stopServer(target: Target) {
  const exited = new Promise((resolve) => target.child.once("exit", resolve));
  target.child.kill("SIGTERM");
  await exited;
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
      const added50 = percentile(through, 50) - percentile(base, 50);
      const added99 = percentile(through, 99) - percentile(base, 99);
      rows[`${concurrency} stream${concurrency === 1 ? "" : "s"}`] = {
        "sim p50 ms": ms(percentile(base, 50)),
        "sim p99 ms": ms(percentile(base, 99)),
        "bare HTTP added p50 ms": ms(percentile(bare, 50) - percentile(base, 50)),
        "bare HTTP added p99 ms": ms(percentile(bare, 99) - percentile(base, 99)),
        "platform p50 ms": ms(percentile(through, 50)),
        "platform p99 ms": ms(percentile(through, 99)),
        "added p50 ms": ms(added50),
        "added p99 ms": ms(added99),
      };
      if (concurrency === 200) {
        verdicts.push(`added p50 at 200 streams ${ms(added50)} ms (target <= 2 ms): ${verdict(added50 <= 2)}`);
        verdicts.push(`added p99 at 200 streams ${ms(added99)} ms (target <= 10 ms): ${verdict(added99 <= 10)}`);
      }
    }
    console.log(`\ntime to first token, POST /runs streaming "::words 200" (${target.database})`);
    console.table(rows);
    for (const line of verdicts) console.log(line);
  } finally {
    await stopServer(target);
  }
}

export async function runsHeldStreams(databaseUrl?: string, streams = 1_000): Promise<void> {
  const target = await startServer(databaseUrl);
  const delayMs = 100;
  const words = 30;
  try {
    await rounds(20, 1, () => streamRun(target, "::words 5"));
    const started = performance.now();
    const results = await Promise.allSettled(
      Array.from({ length: streams }, () => streamRun(target, `::delay ${delayMs}\n::words ${words}`)),
    );
    const elapsed = performance.now() - started;
    const ok = results.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
    const failed = results.length - ok.length;
    // Frame delay: how late each word arrived against the first word's arrival plus i × delay. The sim
    // keeps its own clock (docs/sim-model.md, `::delay`), so this is the platform's delivery lag, not the
    // model slowed down by a busy process.
    const lateness = ok.flatMap((times) => times.deltas.map((at, index) => at - (times.deltas[0]! + index * delayMs)));
    const gaps = ok.flatMap((times) => times.deltas.slice(1).map((at, index) => at - times.deltas[index]! - delayMs));
    const complete = ok.filter((times) => times.done && times.deltas.length === words).length;
    console.log(`\n${streams} concurrent streaming runs, "::delay ${delayMs}" × ${words} words (${target.database}), ${(elapsed / 1000).toFixed(1)} s`);
    console.table({
      "frame delay vs the model's schedule": { "p50 ms": ms(percentile(lateness, 50)), "p99 ms": ms(percentile(lateness, 99)), "max ms": ms(Math.max(...lateness)) },
      "extra gap between frames": { "p50 ms": ms(percentile(gaps, 50)), "p99 ms": ms(percentile(gaps, 99)), "max ms": ms(Math.max(...gaps)) },
      "first token": {
        "p50 ms": ms(percentile(ok.map((t) => t.firstToken), 50)),
        "p99 ms": ms(percentile(ok.map((t) => t.firstToken), 99)),
        "max ms": ms(Math.max(...ok.map((t) => t.firstToken))),
      },
    });
    console.log(`runs complete with every word: ${complete}/${streams}; failed requests: ${failed}`);
    if (failed > 0) console.log(`first failure: ${String((results.find((r) => r.status === "rejected") as PromiseRejectedResult).reason)}`);
    const p99 = percentile(lateness, 99);
    console.log(`frame delay p99 ${ms(p99)} ms (target < 50 ms, all ${streams} held): ${verdict(p99 < 50 && complete === streams)}`);
  } finally {
    await stopServer(target);
  }
}

export async function runsCreation(): Promise<void> {
  await withPostgresDatabase(async (url) => {
    const target = await startServer(url);
    try {
      const options = {
        url: `${target.base}/runs`,
        method: "POST" as const,
        headers: { authorization: `Bearer ${target.key}`, "content-type": "application/json" },
        body: JSON.stringify({ teammate_id: target.agentId, message: "hello", stream: false }),
        connections: 10,
      };
      await autocannon({ ...options, duration: 2 });
      const result = await autocannon({ ...options, duration: 6 });
      const failed = result.non2xx + result.errors;
      console.log(`\nrun creation, POST /runs stream=false (postgres, ${options.connections} connections, 6 s; the runs execute in the same process)`);
      console.table({ platform: { "runs/s": Math.round(result.requests.average), "p50 ms": result.latency.p50, "p99 ms": result.latency.p99, failed } });
      console.log(`throughput ${Math.round(result.requests.average)}/s (target >= 500/s): ${verdict(result.requests.average >= 500 && failed === 0)}`);
      console.log(`p99 ${result.latency.p99} ms (target < 25 ms): ${verdict(result.latency.p99 < 25)}`);
    } finally {
      await stopServer(target);
    }
  });
}
