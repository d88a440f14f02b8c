// 1 web + 1 worker on PostgreSQL, from the sources (tsx) and compiled, under a load of streaming runs:
// each process's idle and peak resident memory and the CPU it spent, and from them the sizing figures
// of docs/deploy.md (streams a web core holds, runs a worker core executes). The baseline is each
// process's own idle state in the same run; the load: STREAMS runs at once through the web, each a sim
// answer of WORDS words paced PACE_MS apart, read to its done frame by this process.
import { spawn, type ChildProcess } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { createInterface } from "node:readline";
import { setTimeout as delay } from "node:timers/promises";
import { buildPlatform, DEFAULT_PLATFORM_OUTDIR } from "@/server/platform-build";
import { withPostgresDatabase } from "./runs";

const root = path.resolve(import.meta.dirname, "..");
const STREAMS = 200;
const WORDS = 50;
const PACE_MS = 100;
const SAMPLE_MS = 100;

export type Mode = "tsx" | "compiled";

export interface Proc {
  child: ChildProcess;
  /** The platform's own process: tsx's child, or the compiled process itself. */
  pid: number;
  line: string;
}

export async function start(
  mode: Mode,
  role: "web" | "worker" | "all",
  databaseUrl: string,
  extraEnv: Record<string, string> = {},
  nodeArgs: string[] = [],
): Promise<Proc> {
  const args = [
    ...nodeArgs,
    ...(mode === "tsx" ? ["--import", "tsx", "server/platform/standalone.ts"] : [path.join(DEFAULT_PLATFORM_OUTDIR, "standalone.js")]),
  ];
  const child = spawn(process.execPath, [...args, "--role", role, ...(role === "worker" ? ["--probe-port", "0"] : ["--port", "0"])], {
    cwd: root,
    // eslint-disable-next-line no-restricted-properties -- the child inherits the benchmark's environment
    env: { ...process.env, DATABASE_URL: databaseUrl, NODE_ENV: "production", NEXTAUTH_SECRET: "bench-secret-bench-secret-bench-secret", LOG_LEVEL: "warn", DATABASE_POOL_MAX: "10", PLATFORM_SIGNUP_CREDIT_MICROS: "1000000000", INLAY_SIGNUP: "open", ...extraEnv },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once("line", resolve);
    child.once("exit", (code) => reject(new Error(`${mode} ${role} exited with ${code}`)));
  });
  // With --import the loader runs in the same process: its pid is the platform's.
  return { child, pid: child.pid!, line };
}

export async function stop(proc: Proc): Promise<void> {
  const exited = new Promise((resolve) => proc.child.once("exit", resolve));
  proc.child.kill("SIGTERM");
  await exited;
}

export async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) / 1024;
}

/** User + system CPU seconds the process has used (/proc/<pid>/stat fields 14 and 15, in clock ticks). */
/** CPU seconds of process `pid`, or of its main thread alone with `mainThread` (its other threads left out). */
export async function cpuSeconds(pid: number, mainThread = false): Promise<number> {
  const stat = await readFile(mainThread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, "utf8").catch(() => "");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

export async function call(base: string, pathname: string, body: object, key?: string) {
  const response = await fetch(`${base}${pathname}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`POST ${pathname}: ${response.status} ${await response.text()}`);
  return (await response.json()) as { api_key: string; id: number };
}

/** One streamed run read to its done frame; resolves with the words it carried. */
async function streamRun(base: string, key: string, agentId: number): Promise<number> {
  const response = await fetch(`${base}/runs`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body: JSON.stringify({ teammate_id: agentId, message: `::delay ${PACE_MS}\n::words ${WORDS}`, stream: true, permission_mode: "autonomous" }),
  });
  if (!response.ok || !response.body) throw new Error(`POST /runs: ${response.status} ${await response.text()}`);
  const text = await response.text();
  if (!text.includes('"type":"done"')) throw new Error("a stream ended without its done frame");
  return (text.match(/"content_block_delta"/g) ?? []).length;
}

export async function verifyAccount(email: string, databaseUrl: string): Promise<void> {
  const cli = spawn(process.execPath, ["--import", "tsx", "server/cli/inlay.ts", "accounts", "verify", email], {
    cwd: root,
    // eslint-disable-next-line no-restricted-properties -- the CLI inherits the benchmark's environment
    env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: "warn" },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const code = await new Promise((resolve) => cli.once("exit", resolve));
  if (code !== 0) throw new Error(`npm run inlay -- accounts verify exited with ${code}`);
}

interface Figures {
  idleMb: number;
  peakMb: number;
  cpuSeconds: number;
}

async function underLoad(mode: Mode, databaseUrl: string) {
  const web = await start(mode, "web", databaseUrl);
  const worker = await start(mode, "worker", databaseUrl);
  try {
    const base = web.line.slice("listening on ".length);
    const email = `load-${mode}-${Date.now()}@example.test`;
    const signup = await call(base, "/signup", { email, first_name: "Load", password: "correct-horse", require_end_user_id: false });
    const key: string = signup.api_key;
    // Past 25 runs an account needs its e-mail verified: the operator CLI does it, as docs/operations.md says.
    await verifyAccount(email, databaseUrl);
    const agent = await call(base, "/agents", { name: "Load" }, key);
    // One run first: the processes are warm (modules loaded, caches filled) before the baseline.
    await streamRun(base, key, agent.id);
    await delay(2_000);
    const procs = { web, worker };
    const figures: Record<"web" | "worker", Figures> = {
      web: { idleMb: await rssMb(web.pid), peakMb: 0, cpuSeconds: 0 },
      worker: { idleMb: await rssMb(worker.pid), peakMb: 0, cpuSeconds: 0 },
    };
    const cpuBefore = { web: await cpuSeconds(web.pid), worker: await cpuSeconds(worker.pid) };
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        for (const role of ["web", "worker"] as const) figures[role].peakMb = Math.max(figures[role].peakMb, await rssMb(procs[role].pid));
        await delay(SAMPLE_MS);
      }
    })();
    const started = performance.now();
    const words = await Promise.all(Array.from({ length: STREAMS }, () => streamRun(base, key, agent.id)));
    const wallSeconds = (performance.now() - started) / 1000;
    sampling = false;
    await sampler;
    for (const role of ["web", "worker"] as const) figures[role].cpuSeconds = (await cpuSeconds(procs[role].pid)) - cpuBefore[role];
    if (words.some((count) => count !== WORDS)) throw new Error(`a stream missed words: ${words.filter((count) => count !== WORDS).length}`);
    return { figures, wallSeconds };
  } finally {
    await stop(worker);
    await stop(web);
  }
}

export async function platformLoad(): Promise<void> {
  await buildPlatform();
  await withPostgresDatabase(async (url) => {
    const rows: Record<string, string | number>[] = [];
    for (const mode of ["tsx", "compiled"] as const) {
      const { figures, wallSeconds } = await underLoad(mode, url);
      const tokens = STREAMS * WORDS;
      for (const role of ["web", "worker"] as const) {
        const { idleMb, peakMb, cpuSeconds } = figures[role];
        const coreShare = cpuSeconds / wallSeconds;
        rows.push({
          mode,
          role,
          "idle RSS (MB)": Math.round(idleMb),
          "peak RSS (MB)": Math.round(peakMb),
          "peak / idle": Number((peakMb / idleMb).toFixed(2)),
          "KB per stream above idle": Math.round(((peakMb - idleMb) * 1024) / STREAMS),
          "CPU s": Number(cpuSeconds.toFixed(2)),
          "core share": Number(coreShare.toFixed(2)),
          "CPU ms per 1k tokens": Math.round((cpuSeconds * 1000 * 1000) / tokens),
          // At this pace: how many such streams (web) or runs (worker) one core would carry.
          "per core at this pace": Math.round(STREAMS / coreShare),
        });
      }
      console.log(`platform-load ${mode}: ${STREAMS} streams × ${WORDS} words ${PACE_MS} ms apart done in ${wallSeconds.toFixed(1)} s`);
    }
    console.table(rows);
  });
}
