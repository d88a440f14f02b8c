// `npm run bench -- held-memory [--streams 1000[,N…]]` (#33 item 5): what one held stream costs the web
// process. A compiled web and worker on a fresh PostgreSQL database; the web writes a heap snapshot
// on SIGUSR2 (a full GC first). One snapshot with nothing held (after a few warm-up runs), one with
// N streamed runs held open (the sim model, a word a second), and the RSS beside each and after the
// first half of them. Reported: heap and RSS per held stream (RSS also over the second half alone), and
// the kinds of object that grew the most per stream.
import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { buildPlatform } from "@/server/platform-build";
import { call, rssMb, start, stop, verifyAccount } from "./platform-load";
import { streamCounts } from "./relay";
import { withPostgresDatabase } from "./runs";

const DEFAULT_STREAMS = 1_000;
const TOP = 15;

interface HeapSummary {
  bytes: number;
  objects: number;
  /** Self size and count per kind: "object:<constructor>", "closure", or the node type. */
  kinds: Map<string, { bytes: number; count: number }>;
}

/** Sums a V8 heap snapshot's nodes by kind. */
async function summarize(file: string): Promise<HeapSummary> {
  const snapshot = JSON.parse(await readFile(file, "utf8")) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
    nodes: number[];
    strings: string[];
  };
  const fields = snapshot.snapshot.meta.node_fields;
  const types = snapshot.snapshot.meta.node_types[0];
  const [typeAt, nameAt, sizeAt] = ["type", "name", "self_size"].map((field) => fields.indexOf(field)) as [number, number, number];
  const kinds = new Map<string, { bytes: number; count: number }>();
  let bytes = 0;
  let objects = 0;
  for (let index = 0; index < snapshot.nodes.length; index += fields.length) {
    const type = types[snapshot.nodes[index + typeAt]!]!;
    const size = snapshot.nodes[index + sizeAt]!;
    const kind = type === "object" ? `object:${snapshot.strings[snapshot.nodes[index + nameAt]!]}` : type;
    const entry = kinds.get(kind) ?? { bytes: 0, count: 0 };
    entry.bytes += size;
    entry.count += 1;
    kinds.set(kind, entry);
    bytes += size;
    objects += 1;
  }
  return { bytes, objects, kinds };
}

/** Sends SIGUSR2 and waits for the snapshot to be written whole into `dir`; returns its path. */
async function takeSnapshot(pid: number, dir: string): Promise<string> {
  const before = new Set(await readdir(dir));
  process.kill(pid, "SIGUSR2");
  for (;;) {
    await delay(500);
    const file = (await readdir(dir)).find((name) => name.endsWith(".heapsnapshot") && !before.has(name));
    if (!file) continue;
    let size = -1;
    for (;;) {
      await delay(1_000);
      const now = (await stat(path.join(dir, file))).size;
      if (now === size && now > 0) return path.join(dir, file);
      size = now;
    }
  }
}

export async function heldMemory(): Promise<void> {
  await buildPlatform();
  for (const streams of streamCounts([DEFAULT_STREAMS])) await measureHeld(streams);
}

async function measureHeld(streams: number): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "inlay-held-memory-"));
  try {
    await withPostgresDatabase(async (url) => {
      const web = await start("compiled", "web", url, {}, [`--diagnostic-dir=${dir}`, "--heapsnapshot-signal=SIGUSR2"]);
      const worker = await start("compiled", "worker", url, { RUN_WORKER_CONCURRENCY: String(streams + 10) });
      const requests: http.ClientRequest[] = [];
      try {
        const base = web.line.slice("listening on ".length);
        const email = `held-memory-${Date.now()}@example.test`;
        const { api_key: key } = await call(base, "/signup", { email, first_name: "Held", password: "correct-horse", require_end_user_id: false });
        await verifyAccount(email, url);
        const agent = await call(base, "/agents", { name: "Held" }, key);
        /** Opens a streamed run; resolves at its first bytes and keeps reading. */
        const open = (message: string) =>
          new Promise<void>((resolve, reject) => {
            const request = http.request(`${base}/runs`, { method: "POST", agent: false, headers: { "content-type": "application/json", authorization: `Bearer ${key}` } }, (response) => {
              if (response.statusCode !== 200) reject(new Error(`POST /runs: ${response.statusCode}`));
              response.once("data", () => resolve());
              response.resume();
              response.on("error", () => {});
            });
            request.on("error", reject);
            request.end(JSON.stringify({ teammate_id: agent.id, message, stream: true }));
            requests.push(request);
          });
        // Warm: modules, caches and code every stream uses are there before the baseline.
        for (let index = 0; index < 10; index++) await open("::words 3");
        await delay(2_000);
        const idle = await summarize(await takeSnapshot(web.pid, dir));
        const idleRss = await rssMb(web.pid);
        // In two halves: the RSS the second half adds is what a stream costs once the process is under
        // load, without what any load grows once (V8's young generation, the allocator's arenas).
        const half = Math.floor(streams / 2);
        await Promise.all(Array.from({ length: half }, () => open("::delay 1000\n::words 90")));
        await delay(5_000);
        const halfRss = await rssMb(web.pid);
        await Promise.all(Array.from({ length: streams - half }, () => open("::delay 1000\n::words 90")));
        await delay(5_000);
        const heldRss = await rssMb(web.pid);
        const held = await summarize(await takeSnapshot(web.pid, dir));
        const perStream = (bytes: number) => bytes / streams / 1024;
        console.log(`\nheld-memory: ${streams} streamed runs held open on a compiled web process (1 web + 1 worker, PostgreSQL)`);
        console.table({
          "heap (live, after a full GC)": { idle: `${(idle.bytes / 2 ** 20).toFixed(1)} MB`, held: `${(held.bytes / 2 ** 20).toFixed(1)} MB`, "KB per stream": perStream(held.bytes - idle.bytes).toFixed(1) },
          RSS: { idle: `${idleRss.toFixed(0)} MB`, held: `${heldRss.toFixed(0)} MB`, "KB per stream": perStream((heldRss - idleRss) * 2 ** 20).toFixed(1) },
          [`RSS, the second ${streams - half}`]: {
            idle: `${halfRss.toFixed(0)} MB (${half} held)`,
            held: `${heldRss.toFixed(0)} MB`,
            "KB per stream": (((heldRss - halfRss) * 1024) / (streams - half)).toFixed(1),
          },
        });
        const grown = [...held.kinds]
          .map(([kind, now]) => {
            const was = idle.kinds.get(kind) ?? { bytes: 0, count: 0 };
            return { kind, bytes: now.bytes - was.bytes, count: now.count - was.count };
          })
          .sort((a, b) => b.bytes - a.bytes)
          .slice(0, TOP);
        console.log(`heap objects per held stream: ${((held.objects - idle.objects) / streams).toFixed(0)}; the ${TOP} kinds that grew most:`);
        console.table(
          Object.fromEntries(grown.map(({ kind, bytes, count }) => [kind, { "bytes per stream": Math.round(bytes / streams), "count per stream": Number((count / streams).toFixed(1)) }])),
        );
      } finally {
        for (const request of requests) request.destroy();
        await stop(worker);
        await stop(web);
      }
    });
  } finally {
    // BENCH_KEEP_SNAPSHOTS=1 leaves them for a closer look (Chrome DevTools' Memory tab reads them).
    // eslint-disable-next-line no-restricted-properties -- benchmark switch, not app configuration
    if (process.env.BENCH_KEEP_SNAPSHOTS) console.log(`heap snapshots kept in ${dir}`);
    else await rm(dir, { recursive: true, force: true });
  }
}
