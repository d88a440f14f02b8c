// One run frame as a Server-Sent Event: what routes/runs/stream.ts sends, and what the benchmarks'
// bare servers send beside it (a module of its own, so they need none of the platform's set-up).
import type { RunFrame } from "@inlay/core/schemas/runs";

/** JSON.stringify never emits a raw newline, so a frame is one `data:` line. */
export const sseEvent = (id: bigint | number, frame: RunFrame) => `id: ${id}\ndata: ${JSON.stringify(frame)}\n\n`;
