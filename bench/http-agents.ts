// Authenticated GET /agents/<id> over HTTP against a bare Hono route returning the same JSON from
// memory, under the same load (autocannon on loopback), rounds interleaved so drift hits both alike.
// Targets: at least 40 % of the bare route's throughput; auth + rate limit + scoping adding at most
// 0.5 ms at p50 and 1.5 ms at p99.
import { spawn } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";
import autocannon from "autocannon";
import { median } from "./runs";

interface Sample {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
}

const ROUNDS = 3;
const SECONDS = 4;
const CONNECTIONS = 10;

async function load(url: string, headers: Record<string, string>): Promise<Sample> {
  const result = await autocannon({ url, headers, connections: CONNECTIONS, duration: SECONDS });
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx + result.errors };
}


/** `databaseUrl`: PostgreSQL for the platform server (a database it may migrate); PGlite without. */
export async function httpAgents(databaseUrl?: string): Promise<void> {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(import.meta.dirname, "http-servers.ts")], {
    stdio: ["ignore", "pipe", "inherit"],
    // eslint-disable-next-line no-restricted-properties -- the child inherits the benchmark's environment
    env: { ...process.env, LOG_LEVEL: "silent", ...(databaseUrl ? { BENCH_DATABASE_URL: databaseUrl } : {}) },
  });
  try {
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout! }).once("line", resolve);
      child.once("exit", (code) => reject(new Error(`bench servers exited with ${code}`)));
    });
    const target = JSON.parse(line) as { platform: string; bare: string; key: string; database: string };
    const auth = { authorization: `Bearer ${target.key}` };

    // Warm both (JIT, connection pools), then measure in alternation.
    await autocannon({ url: target.bare, connections: CONNECTIONS, duration: 1 });
    await autocannon({ url: target.platform, headers: auth, connections: CONNECTIONS, duration: 1 });
    const bare: Sample[] = [];
    const platform: Sample[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      bare.push(await load(target.bare, {}));
      platform.push(await load(target.platform, auth));
    }
    if ([...bare, ...platform].some((sample) => sample.non2xx > 0)) {
      throw new Error("some benchmark requests failed; the numbers would be meaningless");
    }
    const b = { rps: median(bare.map((s) => s.rps)), p50: median(bare.map((s) => s.p50)), p99: median(bare.map((s) => s.p99)) };
    const p = { rps: median(platform.map((s) => s.rps)), p50: median(platform.map((s) => s.p50)), p99: median(platform.map((s) => s.p99)) };
    const ratio = p.rps / b.rps;
    const addedP50 = p.p50 - b.p50;
    const addedP99 = p.p99 - b.p99;

    console.log(`\nauthenticated GET /agents/<id> over HTTP (${target.database}, ${CONNECTIONS} connections, median of ${ROUNDS} × ${SECONDS} s)`);
    console.table({
      "bare Hono route": { "req/s": Math.round(b.rps), "p50 ms": b.p50, "p99 ms": b.p99 },
      "platform": { "req/s": Math.round(p.rps), "p50 ms": p.p50, "p99 ms": p.p99 },
    });
    const verdict = (ok: boolean) => (ok ? "ok" : "MISSES TARGET");
    console.log(`throughput ratio ${(ratio * 100).toFixed(1)} % of bare (target >= 40 %): ${verdict(ratio >= 0.4)}`);
    console.log(`added latency p50 ${addedP50.toFixed(2)} ms (target <= 0.5 ms): ${verdict(addedP50 <= 0.5)}`);
    console.log(`added latency p99 ${addedP99.toFixed(2)} ms (target <= 1.5 ms): ${verdict(addedP99 <= 1.5)}`);
  } finally {
    child.kill("SIGTERM");
  }
}
