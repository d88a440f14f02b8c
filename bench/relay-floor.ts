// Child process of bench/relay.ts: the floor under the relay of a streamed run. A bare node:http
// server that runs the sim model (the same paced words the platform's worker gets) and relays each word
// as an SSE frame once it is durable: every stream's new frames go to PostgreSQL together, one INSERT
// at a time (what arrives meanwhile waits for the next), and each frame is written to its client when
// the INSERT that holds it has committed. No auth, admission, lease, second process or notification.
// Prints {"port":N} once ready; BENCH_DATABASE_URL names the database.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { streamText } from "ai";
import pg from "pg";
import { createSimModel } from "@/server/platform/models/sim";
import { sseEvent } from "@/server/platform/routes/runs/sse-event";
import type { RunFrame } from "@inlay/core/schemas/runs";

// eslint-disable-next-line no-restricted-properties -- benchmark switch, not app configuration
const url = process.env.BENCH_DATABASE_URL;
if (!url) throw new Error("relay-floor needs BENCH_DATABASE_URL");
const pool = new pg.Pool({ connectionString: url, max: 10 });
await pool.query("CREATE TABLE IF NOT EXISTS relay_floor_events (id bigserial PRIMARY KEY, stream_id integer NOT NULL, data jsonb NOT NULL)");

interface Pending {
  streamId: number;
  frame: RunFrame;
  response: http.ServerResponse;
  end: boolean;
}

let pending: Pending[] = [];
let writing = false;

async function writeBatches() {
  writing = true;
  try {
    while (pending.length > 0) {
      const batch = pending;
      pending = [];
      const { rows } = await pool.query<{ id: string }>(
        "INSERT INTO relay_floor_events (stream_id, data) SELECT * FROM unnest($1::int[], $2::jsonb[]) RETURNING id",
        [batch.map((item) => item.streamId), batch.map((item) => JSON.stringify(item.frame))],
      );
      // One write per response per batch, as the platform writes a batch of frames at a time.
      const out = new Map<http.ServerResponse, { text: string; end: boolean }>();
      batch.forEach((item, index) => {
        const entry = out.get(item.response) ?? { text: "", end: false };
        entry.text += sseEvent(BigInt(rows[index]!.id), item.frame);
        entry.end ||= item.end;
        out.set(item.response, entry);
      });
      for (const [response, { text, end }] of out) {
        if (end) response.end(text);
        else response.write(text);
      }
    }
  } finally {
    writing = false;
  }
}

function enqueue(item: Pending) {
  pending.push(item);
  if (!writing) setImmediate(() => void (writing ? undefined : writeBatches().catch((error: unknown) => console.error("floor write failed", error))));
}

let streams = 0;
const server = http.createServer((request, response) => {
  let body = "";
  request.setEncoding("utf8");
  request.on("data", (chunk: string) => (body += chunk));
  request.on("end", () => {
    const { message } = JSON.parse(body) as { message: string };
    const streamId = ++streams;
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    void (async () => {
      const result = streamText({ model: createSimModel(), messages: [{ role: "user", content: message }] });
      for await (const part of result.fullStream) {
        if (part.type !== "text-delta") continue;
        enqueue({ streamId, response, end: false, frame: { type: "content_block_delta", id: part.id, delta: { type: "text_delta", text: part.text } } });
      }
      enqueue({ streamId, response, end: true, frame: { type: "done", completion_state: "completed", stop_reason: "end_turn", message_count: 2 } });
    })();
  });
});
const port = await new Promise<number>((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)));
console.log(JSON.stringify({ port }));
process.on("SIGTERM", () => {
  server.close();
  void pool.end().finally(() => process.exit(0));
});
