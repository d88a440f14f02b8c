// `npm run bench -- app-memory` (#51): where an idle `npm start` keeps its memory, on the default PGlite
// (a fresh data directory) and on PostgreSQL. The production build (`npm run build` first), started as
// bench/app-server.ts starts it, left idle after one page and one API call; then its RSS, V8's figures
// (heap, external, array buffers), PGlite's WebAssembly memory and the largest anonymous mappings, before
// and after a full GC forced through the inspector: what a collection would give back is garbage the
// process keeps only because nothing made V8 collect it.
import { readFile } from "node:fs/promises";
import os from "node:os";
import { setTimeout as delay } from "node:timers/promises";
import { evaluate, liveMemory, pgliteDir, startApp, stopChild } from "./app-server";
import { rssMb } from "./platform-load";
import { withPostgresDatabase } from "./runs";

const IDLE_MS = 20_000;
const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(0);

/** The largest anonymous mappings of `pid`, resident MB of each. */
async function largestMappings(pid: number, count = 6): Promise<string> {
  const text = await readFile(`/proc/${pid}/smaps`, "utf8");
  const maps: { anonymous: boolean; rss: number }[] = [];
  for (const line of text.split("\n")) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ (\d+)\s*(\S*)/.exec(line);
    if (head) maps.push({ anonymous: head[1] === "0" && head[2] === "", rss: 0 });
    else if (line.startsWith("Rss:")) maps.at(-1)!.rss = Number(line.split(/\s+/)[1]) / 1024;
  }
  return maps
    .filter((map) => map.anonymous)
    .map((map) => map.rss)
    .sort((a, b) => b - a)
    .slice(0, count)
    .map((rss) => rss.toFixed(0))
    .join(", ");
}

const WASM_MEMORY = `(async () => {
  const database = await globalThis.__inlayDatabase;
  return database?.driver?.pglite?.mod?.wasmMemory?.buffer.byteLength ?? 0;
})()`;
const V8_MEMORY = "JSON.stringify(process.memoryUsage())";

async function measure(label: string, env: Record<string, string>): Promise<Record<string, string>> {
  const app = await startApp(env);
  try {
    await fetch(`${app.base}/signin`).then((response) => response.text());
    await fetch(`${app.base}/api/v2/openapi.json`).then((response) => response.text());
    await delay(IDLE_MS);
    const rss = await rssMb(app.pid);
    const v8 = JSON.parse((await evaluate(app.inspector, V8_MEMORY)) as string) as NodeJS.MemoryUsage;
    const wasm = (await evaluate(app.inspector, WASM_MEMORY)) as number;
    const mappings = await largestMappings(app.pid);
    const collected = await liveMemory(app.inspector);
    await delay(2_000);
    const rssAfter = await rssMb(app.pid);
    console.log(`${label}: largest anonymous mappings (MB resident) idle: ${mappings}; after the GC: ${await largestMappings(app.pid)}`);
    return {
      "RSS idle MB": rss.toFixed(0),
      "heap used / total MB": `${mb(v8.heapUsed)} / ${mb(v8.heapTotal)}`,
      "external MB": mb(v8.external),
      "array buffers MB": mb(v8.arrayBuffers),
      "PGlite wasm memory MB": mb(wasm),
      "RSS after a full GC MB": rssAfter.toFixed(0),
      "heap used / external after MB": `${mb(collected.heapUsed)} / ${mb(collected.external)}`,
    };
  } finally {
    await stopChild(app.child);
  }
}

export async function appMemory(): Promise<void> {
  const rows: Record<string, Record<string, string>> = {};
  const pglite = await pgliteDir();
  const oneThread = await pgliteDir();
  try {
    // PGlite on its own thread (the default): its WebAssembly memory is that thread's, not read here.
    rows["PGlite (default, its own thread)"] = await measure("PGlite", { PGLITE_DATA_DIR: pglite.dir });
    rows["PGlite, one thread"] = await measure("PGlite, one thread", { PGLITE_DATA_DIR: oneThread.dir, INLAY_WORKER_THREAD: "0" });
  } finally {
    await pglite.remove();
    await oneThread.remove();
  }
  await withPostgresDatabase(async (url) => {
    rows.PostgreSQL = await measure("PostgreSQL", { DATABASE_URL: url });
  });
  console.log(`\napp-memory: next start idle ${IDLE_MS / 1000} s after one page and one API call; load average ${os.loadavg().map((load) => load.toFixed(1)).join(" ")}, node ${process.version}`);
  console.table(rows);
}
