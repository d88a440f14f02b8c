// The platform's processes from the TypeScript sources through tsx (what `npm run platform` ran before
// #38) and compiled (`npm run build`, dist/platform/standalone.js), per role on PostgreSQL: spawn → the
// ready line ("listening on …", "worker ready, probes on …"), and the resident memory once idle. RSS
// is summed over the process and its children: the tsx command is a parent process that starts the
// platform in a child with its loader; the platform process alone is reported beside it.
import { spawn, type ChildProcess } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { createInterface } from "node:readline";
import { setTimeout as delay } from "node:timers/promises";
import { buildPlatform, DEFAULT_PLATFORM_OUTDIR } from "@/server/platform-build";
import { withPostgresDatabase } from "./runs";

const root = path.resolve(import.meta.dirname, "..");
const REPEATS = 3;
/** How long a process sits after its ready line before its memory is read. */
const IDLE_MS = 5_000;
/**
 * A second read of a compiled process, once V8's memory reducer may have run (it gives back the young
 * generation some 16 s after startup's last collection, when it runs at all; on Node 22+ the platform
 * does that itself before its ready line: server/platform/infrastructure/startup-heap.ts).
 */
const SETTLED_MS = 20_000;

type Mode = "tsx" | "compiled";
type Role = "web" | "worker" | "all";

const roleArgs: Record<Role, string[]> = {
  web: ["--role", "web", "--port", "0"],
  worker: ["--role", "worker", "--probe-port", "0"],
  all: ["--role", "all", "--port", "0"],
};

function command(mode: Mode): { file: string; args: string[] } {
  return mode === "tsx"
    ? { file: path.join(root, "node_modules", ".bin", "tsx"), args: ["server/platform/standalone.ts"] }
    : { file: process.execPath, args: [path.join(DEFAULT_PLATFORM_OUTDIR, "standalone.js")] };
}

async function rssKb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0);
}

/** The pids of a process's descendants (/proc/<pid>/stat's fourth field is the parent). */
async function descendants(pid: number): Promise<number[]> {
  const parents = new Map<number, number>();
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, "utf8").catch(() => "");
    const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    if (parent) parents.set(Number(entry), parent);
  }
  const found: number[] = [];
  const walk = (of: number) => {
    for (const [child, parent] of parents) {
      if (parent !== of) continue;
      found.push(child);
      walk(child);
    }
  };
  walk(pid);
  return found;
}

interface Sample {
  readyMs: number;
  treeMb: number;
  platformMb: number;
  /** The platform process's RSS SETTLED_MS after its ready line (compiled only). */
  settledMb?: number;
}

async function measure(mode: Mode, role: Role, databaseUrl: string): Promise<Sample> {
  const { file, args } = command(mode);
  const started = performance.now();
  const child: ChildProcess = spawn(file, [...args, ...roleArgs[role]], {
    cwd: root,
    // eslint-disable-next-line no-restricted-properties -- the child inherits the benchmark's environment
    env: { ...process.env, DATABASE_URL: databaseUrl, NODE_ENV: "production", NEXTAUTH_SECRET: "bench-secret-bench-secret-bench-secret", LOG_LEVEL: "warn", OUTBOUND_ALLOW_LOOPBACK: "" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout! }).once("line", resolve);
      child.once("exit", (code) => reject(new Error(`${mode} ${role} exited with ${code}`)));
    });
    const readyMs = performance.now() - started;
    await delay(IDLE_MS);
    const pids = [child.pid!, ...(await descendants(child.pid!))];
    const sizes = await Promise.all(pids.map(rssKb));
    // The platform is the last node process of the tree (tsx's child, or the compiled process itself).
    const sample: Sample = { readyMs, treeMb: sizes.reduce((a, b) => a + b, 0) / 1024, platformMb: sizes[sizes.length - 1]! / 1024 };
    if (mode === "compiled") {
      await delay(SETTLED_MS - IDLE_MS);
      sample.settledMb = (await rssKb(child.pid!)) / 1024;
    }
    return sample;
  } finally {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export async function platformStartup(): Promise<void> {
  const building = performance.now();
  await buildPlatform();
  console.log(`\nplatform-startup: compiled in ${Math.round(performance.now() - building)} ms`);
  await withPostgresDatabase(async (url) => {
    // Migrated once, so no start below pays for the migrations.
    await measure("compiled", "all", url);
    const rows: Record<string, string | number>[] = [];
    for (const role of ["web", "worker", "all"] as const) {
      const samples: Record<Mode, Sample[]> = { tsx: [], compiled: [] };
      // Alternated, so drift on the shared machine falls on both alike.
      for (let i = 0; i < REPEATS; i++) for (const mode of ["tsx", "compiled"] as const) samples[mode].push(await measure(mode, role, url));
      for (const mode of ["tsx", "compiled"] as const) {
        rows.push({
          role,
          mode,
          "ready (ms)": Math.round(median(samples[mode].map((s) => s.readyMs))),
          "idle RSS, all processes (MB)": Math.round(median(samples[mode].map((s) => s.treeMb))),
          "idle RSS, platform process (MB)": Math.round(median(samples[mode].map((s) => s.platformMb))),
          [`RSS ${SETTLED_MS / 1000} s after ready (MB)`]: mode === "compiled" ? Math.round(median(samples[mode].map((s) => s.settledMb!))) : "",
        });
      }
    }
    console.log(`medians of ${REPEATS} starts each, RSS ${IDLE_MS / 1000} s after the ready line`);
    console.table(rows);
  });
}
