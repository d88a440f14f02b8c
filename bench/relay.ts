// `npm run bench -- relay [--streams 100,500] [--roles all] [--cpu-prof DIR]`: the relay of streamed runs at realistic size. 1 web +
// 1 worker (from the sources) on a fresh PostgreSQL database; N conversations at once (default 100,
// 500 and 1,000), each a streamed POST /runs through the web of the sim model paced at 30 words/s for
// 20 s, read as SSE by this process. Beside it, in the same run, the floor (bench/relay-floor.ts): a bare
// server relaying the same paced words over SSE, each once durable in a batched INSERT.
// Reported per side: frame delay p50/p99 (a word's arrival against its stream's schedule, i × the pace
// after the anchor its earliest word fits: the sim keeps its own clock, so this is the relay's lag), CPU per 1,000 relayed
// words of each process and of the database's backends serving it (/proc/<pid>/stat of the backends
// pg_stat_activity lists for the database; PostgreSQL's shared background processes are left out),
// and resident memory per held stream (peak RSS above idle ÷ streams).
import { spawn } from "node:child_process";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { setTimeout as delay } from "node:timers/promises";
import pg from "pg";
import { call, cpuSeconds, rssMb, start, stop, verifyAccount, type Proc } from "./platform-load";
import { percentile, withPostgresDatabase } from "./runs";

const root = path.resolve(import.meta.dirname, "..");
const PACE_MS = 33; // 30 words a second
const WORDS = 600; // 20 s
const SAMPLE_MS = 250;
const DEFAULT_STREAMS = [100, 500, 1_000];

interface StreamTimes {
  /** Arrival (performance.now) of each word, in order. */
  words: number[];
  done: boolean;
}

/** POSTs `body` to `url` and reads the SSE answer to its end, timing each word's arrival. */
function readStream(url: string, body: object, headers: Record<string, string>): Promise<StreamTimes> {
  return new Promise((resolve, reject) => {
    const times: StreamTimes = { words: [], done: false };
    const request = http.request(url, { method: "POST", agent: false, headers: { "content-type": "application/json", ...headers } }, (response) => {
      if (response.statusCode !== 200) {
        response.resume();
        reject(new Error(`POST ${url}: ${response.statusCode}`));
        return;
      }
      response.setEncoding("utf8");
      let buffer = "";
      response.on("data", (chunk: string) => {
        const now = performance.now();
        buffer += chunk;
        const events = buffer.split("\n\n");
        buffer = events.pop()!;
        for (const event of events) {
          const data = event.split("\n").find((line) => line.startsWith("data: "));
          if (!data) continue;
          const frame = JSON.parse(data.slice(6)) as { type: string; delta?: { text?: string } };
          if (frame.type === "content_block_delta") {
            // A frame may carry several words (a writer that merged them): each is counted.
            const count = (frame.delta?.text ?? "").match(/\S+/g)?.length ?? 0;
            for (let i = 0; i < count; i++) times.words.push(now);
          } else if (frame.type === "done") times.done = true;
        }
      });
      response.on("end", () => resolve(times));
      response.on("error", reject);
    });
    request.on("error", reject);
    request.end(JSON.stringify(body));
  });
}

/** CPU seconds of the database's backends now, by pid. */
async function backendCpu(admin: pg.Client, database: string): Promise<Map<number, number>> {
  const { rows } = await admin.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = $1", [database]);
  const cpu = new Map<number, number>();
  for (const { pid } of rows) {
    // A backend that ended since the listing has no stat left: its last reading stands.
    const seconds = await cpuSeconds(pid);
    if (Number.isFinite(seconds)) cpu.set(pid, seconds);
  }
  return cpu;
}

/** CPU the backends spent between two readings (a backend that came meanwhile counts from zero). */
const backendDelta = (before: Map<number, number>, after: Map<number, number>) =>
  [...after].reduce((sum, [pid, seconds]) => sum + seconds - (before.get(pid) ?? 0), 0);

interface Side {
  lateness: number[];
  complete: number;
  cpu: Record<string, number>;
  memory: Record<string, number>;
  wallSeconds: number;
}

/** Holds `streams` streams through `open` while sampling `procs`' memory and CPU and the backends'. */
async function hold(streams: number, procs: Record<string, number>, open: () => Promise<StreamTimes>, admin: pg.Client, database: string): Promise<Side> {
  await delay(1_000);
  const idle: Record<string, number> = {};
  const peak: Record<string, number> = {};
  const cpuBefore: Record<string, number> = {};
  for (const [name, pid] of Object.entries(procs)) {
    idle[name] = await rssMb(pid);
    peak[name] = idle[name]!;
    cpuBefore[name] = await cpuSeconds(pid);
  }
  const backendsBefore = await backendCpu(admin, database);
  let sampling = true;
  let backendsLast = backendsBefore;
  const sampler = (async () => {
    while (sampling) {
      for (const [name, pid] of Object.entries(procs)) peak[name] = Math.max(peak[name]!, await rssMb(pid));
      // Backends may come and go with the pools: the last reading of each counts.
      const now = await backendCpu(admin, database);
      backendsLast = new Map([...backendsLast, ...now]);
      await delay(SAMPLE_MS);
    }
  })();
  const started = performance.now();
  const results = await Promise.allSettled(Array.from({ length: streams }, open));
  const wallSeconds = (performance.now() - started) / 1000;
  sampling = false;
  await sampler;
  backendsLast = new Map([...backendsLast, ...(await backendCpu(admin, database))]);
  const ok = results.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
  const failure = results.find((result) => result.status === "rejected");
  if (failure) console.log(`relay: ${results.length - ok.length} streams failed, the first: ${String(failure.reason)}`);
  const cpu: Record<string, number> = {};
  const memory: Record<string, number> = {};
  for (const [name, pid] of Object.entries(procs)) {
    cpu[name] = (await cpuSeconds(pid)) - cpuBefore[name]!;
    memory[name] = ((peak[name]! - idle[name]!) * 1024) / streams;
  }
  cpu.postgres = backendDelta(backendsBefore, backendsLast);
  return {
    // Against the stream's schedule, anchored where its earliest word fits (a late first word would
    // otherwise make every later one look early).
    lateness: ok.flatMap(({ words }) => {
      const anchor = Math.min(...words.map((at, index) => at - index * PACE_MS));
      return words.map((at, index) => at - (anchor + index * PACE_MS));
    }),
    complete: ok.filter((times) => times.done && times.words.length === WORDS).length,
    cpu,
    memory,
    wallSeconds,
  };
}

export async function startFloor(databaseUrl: string): Promise<Proc & { port: number }> {
  const child = spawn(process.execPath, [...profileArgs("floor"), "--import", "tsx", "bench/relay-floor.ts"], {
    cwd: root,
    // eslint-disable-next-line no-restricted-properties -- the child inherits the benchmark's environment
    env: { ...process.env, BENCH_DATABASE_URL: databaseUrl, NODE_ENV: "production" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once("line", resolve);
    child.once("exit", (code) => reject(new Error(`relay-floor exited with ${code}`)));
  });
  return { child, pid: child.pid!, line, port: (JSON.parse(line) as { port: number }).port };
}

const f1 = (value: number) => (Number.isFinite(value) ? value.toFixed(1) : "n/a");
const ratio = (value: number, floor: number) => (floor > 0 ? `${(value / floor).toFixed(2)}x` : "n/a");

/** A command-line option's value, `--name value` or `--name=value`; undefined when it is not given. */
export function flagValue(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? process.argv[index + 1] : process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
}

/** `--streams 100,500` on the command line, or the defaults. */
export function streamCounts(defaults: number[] = DEFAULT_STREAMS): number[] {
  const value = flagValue("streams");
  if (!value) return defaults;
  const counts = value.split(",").map(Number);
  if (counts.some((count) => !Number.isInteger(count) || count < 1)) throw new Error(`--streams: "${value}" is not a list of counts`);
  return counts;
}

/** `--cpu-prof <dir>`: the worker (or the one process) and the floor write V8 CPU profiles to <dir>/<role> and <dir>/floor when they stop. */
function profileArgs(name: "worker" | "all" | "floor"): string[] {
  const index = process.argv.indexOf("--cpu-prof");
  const dir = index >= 0 ? process.argv[index + 1] : undefined;
  return dir ? ["--cpu-prof", `--cpu-prof-dir=${path.join(dir, name)}`] : [];
}

/** `--roles all`: the platform as one process (role all) instead of 1 web + 1 worker. */
export function oneProcess(): boolean {
  const value = flagValue("roles");
  if (value === undefined || value === "split") return false;
  if (value === "all") return true;
  throw new Error(`--roles: "${value}" is neither all nor split`);
}

/**
 * 1 web + 1 worker (or one process of role all: `web` and `worker` are then the same) + the floor on
 * `url`, an account (verified, funded) and an autonomous agent.
 */
export interface RelaySetup {
  web: Proc;
  worker: Proc;
  /** The platform's processes by role, as measured. */
  procs: Record<string, Proc>;
  floor: Proc & { port: number };
  base: string;
  auth: Record<string, string>;
  agentId: number;
}

/** Starts what a relay-style benchmark needs for `maxStreams` streams at once, runs `work`, and stops it all. */
export async function withRelaySetup(
  url: string,
  name: string,
  maxStreams: number,
  work: (setup: RelaySetup) => Promise<void>,
  options: { all?: boolean; env?: Record<string, string> } = {},
): Promise<void> {
  // Every conversation runs at once: the worker takes them all, the limits let them in.
  const roleEnv = {
    RUN_WORKER_CONCURRENCY: String(maxStreams),
    PLATFORM_RATE_LIMIT_IP_PER_MINUTE: "1000000",
    PLATFORM_RATE_LIMIT_ACCOUNT_PER_MINUTE: "1000000",
    ...options.env,
  };
  const web = options.all ? await start("tsx", "all", url, roleEnv, profileArgs("all")) : await start("tsx", "web", url, roleEnv);
  const worker = options.all ? web : await start("tsx", "worker", url, roleEnv, profileArgs("worker"));
  const procs: Record<string, Proc> = options.all ? { all: web } : { web, worker };
  // A floor that fails to start must not leave the platform's processes behind.
  const floor = await startFloor(url).catch(async (error: unknown) => {
    for (const proc of Object.values(procs)) await stop(proc);
    throw error;
  });
  try {
    const base = web.line.slice("listening on ".length);
    const email = `${name.toLowerCase()}-${Date.now()}@example.test`;
    const signup = await call(base, "/signup", { email, first_name: name, password: "correct-horse", require_end_user_id: false });
    await verifyAccount(email, url);
    const agent = await call(base, "/agents", { name, default_permission_mode: "autonomous" }, signup.api_key);
    await work({ web, worker, procs, floor, base, auth: { authorization: `Bearer ${signup.api_key}` }, agentId: agent.id });
  } finally {
    await stop(floor);
    for (const proc of Object.values(procs)) await stop(proc);
  }
}

export async function relay(): Promise<void> {
  const counts = streamCounts();
  const all = oneProcess();
  await withPostgresDatabase(async (url) => {
    const database = new URL(url).pathname.slice(1);
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await withRelaySetup(url, "Relay", Math.max(...counts), async ({ procs, floor, base, auth, agentId }) => {
        const message = `::delay ${PACE_MS}\n::words ${WORDS}`;
        const body = { teammate_id: agentId, message, stream: true, permission_mode: "autonomous" };
        const platform = () => readStream(`${base}/runs`, body, auth);
        const bare = () => readStream(`http://127.0.0.1:${floor.port}/`, { message }, {});
        // Warm: modules loaded, pools and caches filled, before any baseline.
        const warm = { ...body, message: "::delay 10\n::words 20" };
        await Promise.all(Array.from({ length: 10 }, () => readStream(`${base}/runs`, warm, auth)));
        await Promise.all(Array.from({ length: 10 }, () => readStream(`http://127.0.0.1:${floor.port}/`, { message: warm.message }, {})));
        const rows: Record<string, Record<string, string | number>> = {};
        for (const streams of counts) {
          const floorSide = await hold(streams, { floor: floor.pid }, bare, admin, database);
          const side = await hold(streams, Object.fromEntries(Object.entries(procs).map(([role, proc]) => [role, proc.pid])), platform, admin, database);
          const per1k = (seconds: number) => (seconds * 1000 * 1000) / (streams * WORDS);
          const p = (values: number[], q: number) => percentile(values, q);
          const roles = Object.keys(procs);
          const platformCpu = roles.reduce((sum, role) => sum + side.cpu[role]!, 0);
          rows[`${streams} floor`] = {
            "delay p50 ms": f1(p(floorSide.lateness, 50)),
            "delay p99 ms": f1(p(floorSide.lateness, 99)),
            "complete": `${floorSide.complete}/${streams}`,
            "CPU ms/1k words (server)": f1(per1k(floorSide.cpu.floor!)),
            "CPU ms/1k words (postgres)": f1(per1k(floorSide.cpu.postgres!)),
            "KB/stream": f1(floorSide.memory.floor!),
            "wall s": f1(floorSide.wallSeconds),
          };
          rows[`${streams} inlay`] = {
            "delay p50 ms": f1(p(side.lateness, 50)),
            "delay p99 ms": f1(p(side.lateness, 99)),
            "complete": `${side.complete}/${streams}`,
            "CPU ms/1k words (server)": `${f1(per1k(platformCpu))} (${roles.map((role) => `${role} ${f1(per1k(side.cpu[role]!))}`).join(", ")})`,
            "CPU ms/1k words (postgres)": f1(per1k(side.cpu.postgres!)),
            "KB/stream": roles.map((role) => `${role} ${f1(side.memory[role]!)}`).join(", "),
            "wall s": f1(side.wallSeconds),
          };
          console.log(
            `relay ${streams} streams: delay p99 ${f1(p(side.lateness, 99))} ms (${ratio(p(side.lateness, 99), p(floorSide.lateness, 99))} the floor's), ` +
              `CPU ${ratio(platformCpu, floorSide.cpu.floor!)} the floor's, postgres CPU ${ratio(side.cpu.postgres!, floorSide.cpu.postgres!)} the floor's, ` +
              `load average ${os.loadavg().map((load) => load.toFixed(1)).join(" ")}`,
          );
        }
        console.log(`\nrelay: ${WORDS} words ${PACE_MS} ms apart per stream, ${all ? "one process (role all)" : "1 web + 1 worker"} (tsx) on PostgreSQL, floor beside`);
        console.table(rows);
      }, { all });
    } finally {
      await admin.end();
    }
  });
}
