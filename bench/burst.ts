// `npm run bench -- burst [--streams 200]` (#33 item 3): where a run waits between its request and its
// first token when a burst of new streams arrives at once. 1 web + 1 worker (from the sources) on a
// fresh PostgreSQL database, then one process (role all) on the same database (`--roles split|all`: one); N streamed POST /runs sent together (sim model, a short answer), each read
// as SSE to its first token. Beside it, in the same run, the floor (bench/relay-floor.ts: a bare server
// with the same sim model, writing frames durably in batches) under the same burst.
// Reported: the client's time to first token p50/p99 on both sides, and, from the worker's /metrics
// (the histograms' change over the burst, quantiles interpolated within buckets as Prometheus'
// histogram_quantile does), the time from admission to the claim and from admission to the first token
// in the log: client TTFT ≈ request→admission (web) + admission→claim (queue) + claim→first token
// (the pass) + log→SSE (relay).
import http from "node:http";
import os from "node:os";
import { oneProcess, streamCounts, withRelaySetup } from "./relay";
import { percentile, withPostgresDatabase } from "./runs";

const DEFAULT_STREAMS = [50, 200];
const MESSAGE = "::delay 20\n::words 20";
// One process (role all) answers /metrics on its API port only with a token.
const METRICS_TOKEN = "burst-bench-metrics-token";

/** Milliseconds from sending the request to the first words of the answer. */
function firstToken(url: string, body: object, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const sent = performance.now();
    let seen = false;
    const request = http.request(url, { method: "POST", agent: false, headers: { "content-type": "application/json", ...headers } }, (response) => {
      if (response.statusCode !== 200) {
        response.resume();
        reject(new Error(`POST ${url}: ${response.statusCode}`));
        return;
      }
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        if (!seen && chunk.includes("content_block_delta")) {
          seen = true;
          resolve(performance.now() - sent);
        }
      });
      response.on("end", () => (seen ? undefined : reject(new Error("the stream ended without a token"))));
      response.on("error", reject);
    });
    request.on("error", reject);
    request.end(JSON.stringify(body));
  });
}

type Buckets = Map<number, number>;

/** The cumulative buckets of one histogram in a Prometheus text exposition. */
async function histogram(metricsUrl: string, name: string): Promise<Buckets> {
  const text = await (await fetch(metricsUrl, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  const buckets: Buckets = new Map();
  for (const line of text.split("\n")) {
    const match = line.match(new RegExp(`^${name}_bucket\\{le="([^"]+)"\\} (\\S+)`));
    if (match) buckets.set(match[1] === "+Inf" ? Infinity : Number(match[1]), Number(match[2]));
  }
  return buckets;
}

/** histogram_quantile over the change between two readings, in milliseconds. */
function quantileMs(before: Buckets, after: Buckets, q: number): number {
  const bounds = [...after.keys()].sort((a, b) => a - b);
  const counts = bounds.map((bound) => after.get(bound)! - (before.get(bound) ?? 0));
  const total = counts.at(-1) ?? 0;
  if (total === 0) return NaN;
  const rank = (q / 100) * total;
  for (let i = 0; i < bounds.length; i++) {
    if (counts[i]! < rank) continue;
    const upper = bounds[i]!;
    const lower = i === 0 ? 0 : bounds[i - 1]!;
    if (upper === Infinity) return lower * 1000;
    const below = i === 0 ? 0 : counts[i - 1]!;
    const inBucket = counts[i]! - below;
    return (lower + (upper - lower) * (inBucket === 0 ? 1 : (rank - below) / inBucket)) * 1000;
  }
  return NaN;
}

const ms = (value: number) => (Number.isFinite(value) ? Math.round(value) : "n/a");

/** All settled; the failures counted and the first one told. */
async function burst(count: number, work: () => Promise<number>, label: string): Promise<number[]> {
  const results = await Promise.allSettled(Array.from({ length: count }, work));
  const failed = results.filter((result) => result.status === "rejected");
  if (failed.length > 0) console.log(`burst ${label}: ${failed.length} of ${count} failed, the first: ${String((failed[0] as PromiseRejectedResult).reason)}`);
  return results.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
}

export async function burstBench(): Promise<void> {
  const counts = streamCounts(DEFAULT_STREAMS);
  // Both by default, one after the other on the same database (#51: one process no worse than split).
  const roles = process.argv.some((arg) => arg.startsWith("--roles")) ? [oneProcess()] : [false, true];
  await withPostgresDatabase(async (url) => {
    for (const all of roles) await burstOf(url, counts, all);
  });
}

async function burstOf(url: string, counts: number[], all: boolean): Promise<void> {
  await withRelaySetup(
    url,
    "Burst",
    Math.max(...counts),
    async ({ worker, floor, base, auth, agentId }) => {
      // A worker answers its metrics on its probe port; one process (role all) on its API port.
      const probes = all ? new URL(base).origin : worker.line.match(/probes on (\S+)/)?.[1];
      if (!probes) throw new Error(`the worker did not say where its probes are: "${worker.line}"`);
      const metrics = `${probes}/metrics`;
      const body = { teammate_id: agentId, message: MESSAGE, stream: true, permission_mode: "autonomous" };
      const platform = () => firstToken(`${base}/runs`, body, auth);
      const bare = () => firstToken(`http://127.0.0.1:${floor.port}/`, { message: MESSAGE }, {});
      // Warm: modules loaded, pools and caches filled.
      await burst(20, platform, "warm-up");
      await burst(20, bare, "warm-up floor");
      const rows: Record<string, Record<string, string | number>> = {};
      for (const count of counts) {
        const floorTimes = await burst(count, bare, `floor ${count}`);
        // Let the warm-up's and the floor's streams end before the histograms are read.
        await new Promise((resolve) => setTimeout(resolve, 2_000));
        const claimBefore = await histogram(metrics, "inlay_run_claim_latency_seconds");
        const firstBefore = await histogram(metrics, "inlay_run_first_token_seconds");
        const times = await burst(count, platform, `inlay ${count}`);
        await new Promise((resolve) => setTimeout(resolve, 2_000));
        const claimAfter = await histogram(metrics, "inlay_run_claim_latency_seconds");
        const firstAfter = await histogram(metrics, "inlay_run_first_token_seconds");
        rows[`${count} streams`] = {
          "floor TTFT p50": ms(percentile(floorTimes, 50)),
          "floor TTFT p99": ms(percentile(floorTimes, 99)),
          "inlay TTFT p50": ms(percentile(times, 50)),
          "inlay TTFT p99": ms(percentile(times, 99)),
          "over floor p50": ms(percentile(times, 50) - percentile(floorTimes, 50)),
          "admission→claim p50": ms(quantileMs(claimBefore, claimAfter, 50)),
          "admission→claim p99": ms(quantileMs(claimBefore, claimAfter, 99)),
          "admission→first token p50": ms(quantileMs(firstBefore, firstAfter, 50)),
          "admission→first token p99": ms(quantileMs(firstBefore, firstAfter, 99)),
        };
      }
      const processes = all ? "one process (role all)" : "1 web + 1 worker";
      console.log(`\nburst: streamed runs sent at once (${JSON.stringify(MESSAGE)}), ${processes} (tsx) on PostgreSQL, the floor beside; ms`);
      console.log(`load average ${os.loadavg().map((load) => load.toFixed(1)).join(" ")}`);
      console.table(rows);
    },
    { all, env: { INLAY_METRICS_TOKEN: METRICS_TOKEN } },
  );
}
