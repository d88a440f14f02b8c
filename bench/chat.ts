// Chat and embed benchmarks (issue #7), each against a target or a baseline measured in the same run:
// - embed-size: public/embed.js raw and gzipped (level 9), target <= 3 KB gzipped;
// - chat-bundle: the JavaScript the /chat route loads, gzipped, from a production build, target
//   <= 120 KB;
// - chat-bridge-ttft: time to first text through the chat bridge (server/chat/bridge.ts) against the
//   platform's own POST /runs SSE (with and without the Idempotency-Key the platform client sends),
//   same platform, same run; target: the bridge adds <= 3 ms at p50.
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { gzipSync } from "node:zlib";
import { EventSourceParserStream } from "eventsource-parser/stream";
import type { ChatChunk } from "@/lib/chat/types";
import { createPlatformClient } from "@/lib/platform-client";
import { createChatHandlers } from "@/server/chat/bridge";
import { agentByName, type ChatContext } from "@/server/chat/context";
import { percentile, startServer, stopServer, type Target } from "./runs";

const root = path.resolve(import.meta.dirname, "..");
const KB = 1024;
const kb = (bytes: number) => `${(bytes / KB).toFixed(2)} KB`;
const gzipped = (data: Buffer) => gzipSync(data, { level: 9 }).length;
const verdict = (ok: boolean) => (ok ? "ok" : "MISSES TARGET");
const ms = (value: number) => value.toFixed(2);

export async function embedSize(): Promise<void> {
  const source = readFileSync(path.join(root, "public/embed.js"));
  const zipped = gzipped(source);
  console.log("\nembed loader, public/embed.js");
  console.table({ "embed.js": { raw: kb(source.length), "gzip -9": kb(zipped), "gzip bytes": zipped } });
  console.log(`gzipped ${kb(zipped)} (target <= 3 KB): ${verdict(zipped <= 3 * KB)}`);
}

// What a change to the client bundle can come from. The build is reused only when its BUILD_ID is
// newer than every one of these (a stale build would measure code that is gone).
const BUILD_INPUTS = ["app", "components", "lib", "public", "next.config.mjs", "postcss.config.mjs", "package-lock.json", "tsconfig.json", "proxy.ts"];

function newestMtime(entry: string): number {
  const stat = statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const child of readdirSync(entry)) newest = Math.max(newest, newestMtime(path.join(entry, child)));
  return newest;
}

function ensureBuild(): string {
  const buildId = path.join(root, ".next/BUILD_ID");
  const sources = Math.max(...BUILD_INPUTS.map((each) => path.join(root, each)).filter(existsSync).map(newestMtime));
  if (existsSync(buildId) && statSync(buildId).mtimeMs > sources) return "reused .next (newer than the sources)";
  console.log("building (next build): .next is missing or older than the sources …");
  execFileSync(path.join(root, "node_modules/.bin/next"), ["build"], {
    cwd: root,
    stdio: ["ignore", "ignore", "inherit"],
    // eslint-disable-next-line no-restricted-properties -- the build inherits the benchmark's environment
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
  });
  return "built now (next build)";
}

interface ClientReferenceManifest {
  entryJSFiles: Record<string, string[]>;
}

/**
 * The JS files a first load of /chat fetches, from the build's manifests. Why manifests and not the
 * HTML of `next start`: /chat needs a signed-in member with a tenant (and ?agent=), so a fetched page
 * would be a redirect to /login unless the benchmark also seeded a database and a session; the
 * manifests are what Next itself renders those script tags from. Two of them (Next 16, Turbopack):
 * - build-manifest.json `rootMainFiles`: the runtime and framework chunks every app route loads;
 *   `polyfillFiles` are left out, since they are `noModule` scripts modern browsers skip;
 * - the page's client reference manifest (server/app/(console)/chat/page_client-reference-manifest.js)
 *   `entryJSFiles`: per segment (root layout, (console) layout, the page), the chunks holding its
 *   client components; the page's list already includes its layouts' chunks. Chunks loaded later by
 *   a dynamic import() are not in it, and are not counted: they are not part of the first load.
 */
function chatRouteChunks(): string[] {
  const next = path.join(root, ".next");
  const build = JSON.parse(readFileSync(path.join(next, "build-manifest.json"), "utf8")) as { rootMainFiles: string[] };
  const manifestFile = path.join(next, "server/app/(console)/chat/page_client-reference-manifest.js");
  // The manifest is a script that assigns globalThis.__RSC_MANIFEST[page]; run it on a fresh object.
  const holder = globalThis as { __RSC_MANIFEST?: Record<string, ClientReferenceManifest> };
  const previous = holder.__RSC_MANIFEST;
  holder.__RSC_MANIFEST = {};
  try {
    createRequire(import.meta.url)(manifestFile);
    const manifest = holder.__RSC_MANIFEST["/(console)/chat/page"];
    if (!manifest) throw new Error(`no /(console)/chat/page entry in ${manifestFile}`);
    const page = Object.entries(manifest.entryJSFiles).find(([segment]) => segment.endsWith("app/(console)/chat/page"));
    if (!page) throw new Error("the manifest names no chunks for app/(console)/chat/page");
    const segments = Object.entries(manifest.entryJSFiles)
      .filter(([segment]) => /app\/layout$|app\/\(console\)\/layout$/.test(segment))
      .flatMap(([, files]) => files);
    return [...new Set([...build.rootMainFiles, ...segments, ...page[1]])].filter((file) => file.endsWith(".js"));
  } finally {
    holder.__RSC_MANIFEST = previous;
  }
}

export async function chatBundle(): Promise<void> {
  const how = ensureBuild();
  const files = chatRouteChunks().map((file) => {
    const data = readFileSync(path.join(root, ".next", file));
    return { file, raw: data.length, gzip: gzipped(data) };
  });
  const total = files.reduce((sum, each) => sum + each.gzip, 0);
  const raw = files.reduce((sum, each) => sum + each.raw, 0);
  console.log(`\n/chat first-load JavaScript (${how}; ${files.length} chunks)`);
  console.table(
    Object.fromEntries(
      [...files].sort((a, b) => b.gzip - a.gzip).map((each) => [each.file, { raw: kb(each.raw), "gzip -9": kb(each.gzip) }]),
    ),
  );
  console.log(`total ${kb(raw)} raw, ${kb(total)} gzipped (target <= 120 KB gzipped): ${verdict(total <= 120 * KB)}`);
}

/** Server-sent events of a response as they arrive, parsed the way the browser's client would. */
async function* events(response: Response): AsyncGenerator<string> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      yield value.data;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/** Reads a stream to its end; ms from `started` to the first event `isText` accepts. */
async function firstText(started: number, response: Response, isText: (data: string) => boolean): Promise<number> {
  if (response.status !== 200) throw new Error(`answered ${response.status}: ${await response.text()}`);
  let first = NaN;
  for await (const data of events(response)) {
    if (Number.isNaN(first) && isText(data)) first = performance.now() - started;
  }
  if (Number.isNaN(first)) throw new Error("the stream ended without text");
  return first;
}

async function rounds(concurrency: number, count: number, work: () => Promise<number>): Promise<number[]> {
  const out: number[] = [];
  for (let round = 0; round < count; round++) out.push(...(await Promise.all(Array.from({ length: concurrency }, work))));
  return out;
}

export async function chatBridgeTtft(samples = 200): Promise<void> {
  // The platform (PGlite in memory, sim model, runs executed in its process) runs in a child process,
  // as for runs-ttft, so the bridge's work in this process is not mixed into the server's event loop.
  const target: Target = await startServer();
  const message = "::words 50";
  const userId = "bench-member";
  try {
    const client = createPlatformClient({ baseUrl: target.base, apiKey: target.key }).forUser(userId);
    // The member's own agent, made once: a numeric name makes agentByName answer without a call, so
    // the subject measures the bridge, not the framework's agent lookup (a ChatContextResolver's work).
    const agentId = await agentByName(client, "Bench chat");
    const context: ChatContext = {
      client,
      agentId: (agent) => agentByName(client, agent),
      subject: { tenantId: "bench", userId, via: "session" },
    };
    const handlers = createChatHandlers(async () => context);
    let counter = 0;

    // Baseline: the request the bridge makes (same agent, same user_id), straight to the platform.
    // The platform client sends every run-creating POST with an Idempotency-Key, which costs the
    // platform work of its own; the second baseline sends one too, so the table tells the platform's
    // idempotency apart from the bridge's own work in this process.
    const direct = (idempotent: boolean) => async () => {
      const started = performance.now();
      const response = await fetch(`${target.base}/runs`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${target.key}`,
          "content-type": "application/json",
          ...(idempotent ? { "idempotency-key": randomUUID() } : {}),
        },
        body: JSON.stringify({ teammate_id: agentId, message, user_id: userId }),
      });
      return firstText(started, response, (data) => data.includes('"content_block_delta"') && (JSON.parse(data) as { type: string }).type === "content_block_delta");
    };
    // Subject: POST /api/chat's handler, read as useChat's transport reads it.
    const bridged = async () => {
      const body = { agent: String(agentId), message: { id: `b${++counter}`, role: "user", parts: [{ type: "text", text: message }] } };
      const started = performance.now();
      const response = await handlers.send(
        new Request("http://127.0.0.1/api/chat", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
      );
      return firstText(started, response, (data) => data !== "[DONE]" && (JSON.parse(data) as ChatChunk).type === "text-delta");
    };
    const paths = { "POST /runs": direct(false), "POST /runs + Idempotency-Key": direct(true), bridge: bridged };

    for (const work of Object.values(paths)) await rounds(5, 4, work); // warm up (JIT, pools, caches)
    const rows: Record<string, Record<string, string>> = {};
    const verdicts: string[] = [];
    for (const [concurrency, count] of [
      [1, samples],
      [10, samples / 10],
    ] as const) {
      // Interleaved, a round of each in turn, so drift in the shared machine's load falls on all.
      const times = Object.fromEntries(Object.keys(paths).map((name) => [name, [] as number[]]));
      for (let round = 0; round < count; round++) {
        for (const [name, work] of Object.entries(paths)) times[name]!.push(...(await rounds(concurrency, 1, work)));
      }
      const plain = times["POST /runs"]!;
      const label = concurrency === 1 ? "sequential" : `concurrency ${concurrency}`;
      for (const [name, values] of Object.entries(times)) {
        rows[`${label}, ${name} (n=${values.length})`] = {
          "p50 ms": ms(percentile(values, 50)),
          "p99 ms": ms(percentile(values, 99)),
          "vs POST /runs p50 ms": name === "POST /runs" ? "" : ms(percentile(values, 50) - percentile(plain, 50)),
          "vs POST /runs p99 ms": name === "POST /runs" ? "" : ms(percentile(values, 99) - percentile(plain, 99)),
        };
      }
      const added50 = percentile(times.bridge!, 50) - percentile(plain, 50);
      const own50 = percentile(times.bridge!, 50) - percentile(times["POST /runs + Idempotency-Key"]!, 50);
      verdicts.push(
        `${label}: bridge adds ${ms(added50)} ms at p50 over POST /runs (target <= 3 ms): ${verdict(added50 <= 3)}; ` +
          `${ms(own50)} ms over the same request with an Idempotency-Key`,
      );
    }
    console.log(`\ntime to first text, "${message}": POST /runs SSE vs the chat bridge's UI message stream (${target.database})`);
    console.table(rows);
    for (const line of verdicts) console.log(line);
  } finally {
    await stopServer(target);
  }
}
