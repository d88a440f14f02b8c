// `npm run bench -- peers`: Inlay beside the servers a user would otherwise pick to stream agent runs,
// in the same run, with the same client (streamSse of runs.ts) and the same content: 100 words 20 ms
// apart from a model with no network (Inlay's sim model on "::delay 20\n::words 100"; a fake model
// yielding the same words on the same clock in each peer, bench/peers/fake-words.mjs).
// - the bare floor: node:http streaming the sim model (run-servers.ts), no platform;
// - Inlay: POST /api/v2/runs streaming, role all, PGlite in memory (BENCH_DATABASE=postgres: PostgreSQL);
// - LangGraph's JS API server (@langchain/langgraph-api, what `langgraph dev` runs): POST /runs/stream,
//   stream_mode messages-tuple, a one-node graph on a fake chat model;
// - Mastra's server (createNodeServer of @mastra/deployer): POST /api/agents/bench/stream.
// Each is measured alone (the others stopped or idle): time to first token at 50 and 200 concurrent
// streams, then frame delay holding 500 streams. The peers are installed by hand in bench/peers
// (`npm --prefix bench/peers install --no-audit --no-fund`, never by CI); a peer that is not installed
// or does not start is reported and skipped.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { inlayFrame, percentile, rounds, startServer, stopServer, streamSse, type FrameKind, type StreamTimes } from "./runs";

const WORDS = 100;
const DELAY_MS = 20;
const MESSAGE = `::delay ${DELAY_MS}\n::words ${WORDS}`;
const HELD = 500;
// LangGraph executes a run only on a free worker (`--n-jobs-per-worker`, 10 by default in `langgraph
// dev`); with fewer workers than streams the rest queue. The benchmark gives it one per held stream.
// eslint-disable-next-line no-restricted-properties -- benchmark switch, not app configuration
const LANGGRAPH_WORKERS = Number(process.env.BENCH_LANGGRAPH_WORKERS ?? HELD);
const PEERS_DIR = path.join(import.meta.dirname, "peers");

interface Subject {
  name: string;
  store: string;
  open: () => Promise<StreamTimes>;
}

interface Peer {
  child: ChildProcess;
  base: string;
  cleanup: () => Promise<void>;
}

/** Starts bench/peers/<script> and waits for its `{"base":…}` line (other stdout lines are its logs). */
async function startPeer(script: string, args: string[] = [], cleanup = async () => {}): Promise<Peer> {
  const child = spawn(process.execPath, [path.join(PEERS_DIR, script), ...args], {
    cwd: PEERS_DIR,
    stdio: ["ignore", "pipe", "pipe"],
    // eslint-disable-next-line no-restricted-properties -- the child inherits the benchmark's environment
    env: { ...process.env, LOG_LEVEL: "error", MASTRA_TELEMETRY_DISABLED: "1", NODE_ENV: "production" },
  });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} did not start in 60 s: ${stderr}`)), 60_000);
    createInterface({ input: child.stdout! }).on("line", (line) => {
      if (!line.startsWith('{"base"')) return;
      clearTimeout(timer);
      resolve((JSON.parse(line) as { base: string }).base);
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited with ${code}: ${stderr.trim()}`));
    });
  });
  child.stdout!.resume();
  return { child, base, cleanup };
}

async function stopPeer(peer: Peer) {
  if (peer.child.exitCode === null) {
    const exited = new Promise((resolve) => peer.child.once("exit", resolve));
    peer.child.kill("SIGTERM");
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    if (peer.child.exitCode === null) peer.child.kill("SIGKILL");
  }
  await peer.cleanup();
}

function langGraphFrame(event: string | undefined): FrameKind {
  return event === "messages" ? "token" : undefined;
}

function mastraFrame(_event: string | undefined, data: string): FrameKind {
  if (data === "[DONE]") return "done";
  return (JSON.parse(data) as { type: string }).type === "text-delta" ? "token" : undefined;
}

const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(1) : "n/a");

type Row = Record<string, string>;

async function measure(subject: Subject): Promise<Row> {
  await rounds(10, 1, subject.open); // warm up (JIT, pools)
  const row: Row = { store: subject.store };
  for (const [concurrency, count] of [
    [50, 4],
    [200, 2],
  ] as const) {
    const times = await rounds(concurrency, count, subject.open);
    const first = times.map((t) => t.firstToken);
    row[`TTFT ${concurrency} p50 ms`] = ms(percentile(first, 50));
    row[`TTFT ${concurrency} p99 ms`] = ms(percentile(first, 99));
  }
  // The client's own event loop over the held streams: when it lags, every figure of the row is late
  // by as much, whatever the server did.
  const clientLoop = monitorEventLoopDelay({ resolution: 1 });
  clientLoop.enable();
  const started = performance.now();
  const results = await Promise.allSettled(Array.from({ length: HELD }, subject.open));
  const elapsed = performance.now() - started;
  clientLoop.disable();
  const ok = results.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
  // Frame delay as in runs-held: each word's arrival against the first word's plus i × 20 ms.
  const lateness = ok.flatMap((t) => t.deltas.map((at, index) => at - (t.deltas[0]! + index * DELAY_MS)));
  const complete = ok.filter((t) => t.deltas.length === WORDS).length;
  row[`${HELD} held: frame delay p50 ms`] = ms(percentile(lateness, 50));
  row[`${HELD} held: frame delay p99 ms`] = ms(percentile(lateness, 99));
  row[`${HELD} held: TTFT p99 ms`] = ms(percentile(ok.map((t) => t.firstToken), 99));
  row[`${HELD} held: complete`] = `${complete}/${HELD}`;
  row[`${HELD} held: s`] = (elapsed / 1000).toFixed(1);
  row[`${HELD} held: client loop delay p99 (ms)`] = ms(clientLoop.percentile(99) / 1e6);
  const failure = results.find((r) => r.status === "rejected") as PromiseRejectedResult | undefined;
  if (failure) console.log(`${subject.name}: ${results.length - ok.length} failed; first: ${String(failure.reason)}`);
  return row;
}

async function peerVersion(name: string): Promise<string> {
  const file = path.join(PEERS_DIR, "node_modules", ...name.split("/"), "package.json");
  return existsSync(file) ? ((JSON.parse(await readFile(file, "utf8")) as { version: string }).version ?? "?") : "not installed";
}

export async function peerRuns(databaseUrl?: string): Promise<void> {
  const load = () => loadavg().map((n) => n.toFixed(2)).join(", ");
  console.log(`\npeers: ${WORDS} words ${DELAY_MS} ms apart per stream; load average before: ${load()}`);
  const rows: Record<string, Row> = {};
  const notes: string[] = [];

  const inlay = await startServer(databaseUrl);
  try {
    const floor: Subject = {
      name: "bare node:http floor",
      store: "none",
      open: () => streamSse(inlay.bareBase, {}, JSON.stringify({ message: MESSAGE }), inlayFrame),
    };
    rows[floor.name] = await measure(floor);
    const platform: Subject = {
      name: "Inlay",
      store: `${inlay.database} (every frame)`,
      open: () =>
        streamSse(
          `${inlay.base}/runs`,
          { authorization: `Bearer ${inlay.key}` },
          JSON.stringify({ teammate_id: inlay.agentId, message: MESSAGE }),
          inlayFrame,
        ),
    };
    rows[platform.name] = await measure(platform);
  } finally {
    await stopServer(inlay);
  }

  const peers: { name: string; pkg: string; store: string; start: () => Promise<Peer>; open: (base: string) => Promise<StreamTimes> }[] = [
    {
      name: "LangGraph API",
      pkg: "@langchain/langgraph-api",
      store: "memory (JSON snapshot ~3 s)",
      start: async () => {
        const cwd = await mkdtemp(path.join(tmpdir(), "bench-langgraph-"));
        return startPeer("langgraph-server.mjs", [cwd, String(LANGGRAPH_WORKERS)], () => rm(cwd, { recursive: true, force: true }));
      },
      open: (base) =>
        streamSse(
          `${base}/runs/stream`,
          {},
          JSON.stringify({ assistant_id: "agent", input: { messages: [{ role: "user", content: "hi" }] }, stream_mode: ["messages-tuple"] }),
          langGraphFrame,
        ),
    },
    {
      name: "Mastra",
      pkg: "@mastra/core",
      store: "none (no storage set)",
      start: () => startPeer("mastra-server.mjs"),
      open: (base) => streamSse(`${base}/api/agents/bench/stream`, {}, JSON.stringify({ messages: [{ role: "user", content: "hi" }] }), mastraFrame),
    },
  ];
  for (const peer of peers) {
    const version = await peerVersion(peer.pkg);
    const name = `${peer.name} ${version}`;
    if (version === "not installed") {
      notes.push(`${peer.name}: not installed (npm --prefix bench/peers install --no-audit --no-fund)`);
      continue;
    }
    let running: Peer;
    try {
      running = await peer.start();
    } catch (error) {
      notes.push(`${peer.name}: did not start: ${String(error)}`);
      continue;
    }
    try {
      rows[name] = await measure({ name, store: peer.store, open: () => peer.open(running.base) });
    } catch (error) {
      notes.push(`${peer.name}: failed: ${String(error)}`);
    } finally {
      await stopPeer(running);
    }
  }

  console.log(`\nTTFT and frame delay, ${WORDS} words ${DELAY_MS} ms apart (Inlay on ${databaseUrl ? "postgres" : "pglite"}); load average after: ${load()}`);
  console.table(rows);
  const floorRow = rows["bare node:http floor"]!;
  const ratios: Record<string, Row> = {};
  for (const [name, row] of Object.entries(rows)) {
    if (name === "bare node:http floor") continue;
    ratios[name] = Object.fromEntries(
      Object.keys(row)
        .filter((key) => key.endsWith("ms"))
        .map((key) => [key.replace(" ms", " ÷ floor"), (Number(row[key]) / Number(floorRow[key])).toFixed(2)]),
    );
  }
  console.log("ratios against the bare floor of this run");
  console.table(ratios);
  for (const note of notes) console.log(note);
  if (LANGGRAPH_WORKERS !== 10) console.log(`LangGraph ran with ${LANGGRAPH_WORKERS} run workers (langgraph dev's default is 10; BENCH_LANGGRAPH_WORKERS)`);
}
