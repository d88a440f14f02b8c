// Chat and embed benchmarks (issue #7), each against a target or a baseline measured in the same run:
// - embed-size: public/embed.js raw and gzipped (level 9), target <= 3 KB gzipped;
// - chat-bundle: in bench/chat-bundle.ts;
// - chat-bridge-ttft: time to first text through the chat bridge (server/framework/chat/bridge.ts) against the
//   platform's own POST /runs SSE (with and without the Idempotency-Key the platform client sends),
//   same platform, same run; target: the bridge adds <= 3 ms at p50.
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { gzipSync } from "node:zlib";
import { EventSourceParserStream } from "eventsource-parser/stream";
import type { ChatChunk } from "@inlay/core/chat/types";
import { createPlatformClient } from "@inlay/core/platform-client";
import { createChatHandlers } from "@/server/framework/chat/bridge";
import { agentByName, type ChatContext } from "@/server/framework/chat/context";
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
      // Interleaved, a round of each in turn, so drift in the shared machine's load falls on all; the
      // order rotates every round, since each request meets the tail of the run before it (its
      // settlement and lease release), which a fixed order would charge to the same path every time.
      const times = Object.fromEntries(Object.keys(paths).map((name) => [name, [] as number[]]));
      const order = Object.entries(paths);
      for (let round = 0; round < count; round++) {
        for (let index = 0; index < order.length; index++) {
          const [name, work] = order[(round + index) % order.length]!;
          times[name]!.push(...(await rounds(concurrency, 1, work)));
        }
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
