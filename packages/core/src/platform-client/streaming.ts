// A run's frames as an async iterable: SSE parsed with eventsource-parser, both of the spec's frame
// forms normalised to one union, and resumption. When the connection drops (or goes silent) before
// the `done` frame, the stream reconnects through GET /runs/{run_id}/events with Last-Event-ID, so
// the caller sees every frame exactly once.
import { EventSourceParserStream, type EventSourceMessage } from "eventsource-parser/stream";
import { ConnectionError, PlatformApiError, UserAbortError } from "./errors";
import { retryDelayMs, sleep, type Answer, type RequestOptions, type Transport } from "./transport";
import type { Run, RunFrame } from "./types";

/**
 * One frame, from either form the spec describes, as the current form. The earlier form maps as:
 * `text-delta` {delta} → content_block_delta; `tool-call-start` {toolName, toolCallId} → tool_use
 * (input as sent, else undefined); `tool-result-end` {toolCallId, result} → tool_result (content is
 * the result as text); `done` {stop_reason} → done with completion_state read from stop_reason
 * (error → failed, cancelled → cancelled, else completed) and message_count 0 when not sent.
 * Frame types this client does not know are skipped (a newer server may add some).
 */
export function normalizeFrame(raw: unknown): RunFrame | undefined {
  if (typeof raw !== "object" || raw === null) return undefined;
  const frame = raw as Record<string, unknown>;
  const text = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value) ?? "");
  switch (frame.type) {
    case "content_block_delta":
    case "tool_use":
    case "tool_result":
    case "run_status":
    case "permission_request":
      return frame as RunFrame;
    case "done": {
      const stopReason = typeof frame.stop_reason === "string" ? frame.stop_reason : "unknown";
      return {
        type: "done",
        completion_state:
          typeof frame.completion_state === "string"
            ? frame.completion_state
            : stopReason === "error"
              ? "failed"
              : stopReason === "cancelled"
                ? "cancelled"
                : "completed",
        stop_reason: stopReason,
        message_count: typeof frame.message_count === "number" ? frame.message_count : 0,
        // Present when the run has an output_schema (null: the model produced no valid object).
        ...("output_data" in frame ? { output_data: (frame.output_data ?? null) as Record<string, unknown> | null } : {}),
        // Inlay's extension: when the platform produced it.
        ...(typeof frame.at === "string" ? { at: frame.at } : {}),
      };
    }
    case "text-delta":
      return {
        type: "content_block_delta",
        id: typeof frame.id === "string" ? frame.id : "",
        delta: { type: "text_delta", text: text(frame.delta) },
      };
    case "tool-call-start":
      return { type: "tool_use", id: text(frame.toolCallId), name: text(frame.toolName), input: frame.input };
    case "tool-result-end":
      return { type: "tool_result", tool_use_id: text(frame.toolCallId), content: text(frame.result), result: frame.result };
    default:
      return undefined;
  }
}

/** A connection that sends nothing, not even a keep-alive comment (every 15 s), for this long is dead. */
const IDLE_TIMEOUT_MS = 45_000;
/** The first reconnect of a stream the server ended waits up to this (jitter, so a drained instance's streams do not all land at once). */
const ENDED_STREAM_RETRY_MS = 100;

export interface RunStreamInit {
  transport: Transport;
  /** The first connection's answer (a POST's own stream); absent = start with GET …/events. */
  initial?: Answer;
  runId?: number;
  /** The run's end-user scope: a string, null for the account level, undefined when not known. */
  userId?: string | null;
  /**
   * Learns the run when the first connection did not say enough to resume (no x-run-id header, or
   * an unknown scope): a run-creating call replays its request with the same Idempotency-Key.
   */
  resolveRun?: () => Promise<Run>;
  lastEventId?: string;
  /**
   * The stream is a reply's: it covers the run's latest request only. The log holds one `done` per
   * request, and reading it from the start ends at the first request's, so a stream that must
   * (re)connect before it has seen a frame of its own first finds where the latest request begins.
   */
  latestRequest?: boolean;
  /** The stream's own controller; abort() aborts it. */
  controller: AbortController;
  /** Used for reconnects: signal, maxRetries, timeoutMs, headers. */
  options: RequestOptions;
  idleTimeoutMs?: number;
}

export class RunStream implements AsyncIterable<RunFrame> {
  /** The run's id: known from the start for runs.events, from the x-run-id header for a POST. */
  runId: number | undefined;
  /** The id of the last frame delivered; what a reconnect sends as Last-Event-ID. */
  lastEventId: string | undefined;
  /** How many times the stream reconnected. */
  reconnects = 0;
  private userId: string | null | undefined;
  private readonly init: RunStreamInit;
  private iterated = false;
  /** A reply's stream knows where its request begins (a frame seen, or the log walked). */
  private located: boolean;

  constructor(init: RunStreamInit) {
    this.init = init;
    this.lastEventId = init.lastEventId;
    this.userId = init.userId;
    this.located = !init.latestRequest || init.lastEventId !== undefined;
    const header = init.initial?.response.headers.get("x-run-id");
    this.runId = init.runId ?? (header && /^\d+$/.test(header) ? Number(header) : undefined);
  }

  /** Stops the stream: the iteration ends quietly after the frames already delivered. */
  abort(): void {
    this.init.controller.abort();
  }

  get signal(): AbortSignal {
    return this.init.controller.signal;
  }

  /** All frames up to `done`, collected. */
  async toArray(): Promise<RunFrame[]> {
    const frames: RunFrame[] = [];
    for await (const frame of this) frames.push(frame);
    return frames;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<RunFrame> {
    if (this.iterated) throw new TypeError("a RunStream can be iterated once");
    this.iterated = true;
    const { controller, options } = this.init;
    const maxRetries = options.maxRetries ?? this.init.transport.options.maxRetries ?? 2;
    let answer = this.init.initial;
    let failures = 0;
    for (;;) {
      if (controller.signal.aborted) return;
      let dropped: unknown;
      let endedByServer = false;
      const fromLog = answer === undefined;
      let delivered = 0;
      try {
        if (answer === undefined && !this.located) {
          this.lastEventId = await this.latestRequestStart();
          this.located = true;
        }
        answer ??= await this.openEvents();
        for await (const message of this.messages(answer)) {
          if (message.id !== undefined) {
            this.lastEventId = message.id;
            this.located = true;
          }
          let data: unknown;
          try {
            data = JSON.parse(message.data);
          } catch {
            continue;
          }
          const frame = normalizeFrame(data);
          if (!frame) continue;
          // Frames already buffered when abort() was called are not delivered.
          if (controller.signal.aborted) return;
          failures = 0;
          delivered++;
          yield frame;
          if (frame.type === "done") return;
        }
        // 204: the run is over and nothing follows the cursor (the done frame was delivered before).
        // A stream that ends empty otherwise is a dropped one (an instance that drains ends its
        // streams): it reconnects like any other.
        if (fromLog && delivered === 0 && answer.response.status === 204) return;
        dropped = new ConnectionError({ message: "the stream ended before the run's done frame" });
        endedByServer = true;
      } catch (error) {
        if (controller.signal.aborted) return;
        // An answer from the platform (404, 401 …) is not a dropped connection: report it.
        if (error instanceof PlatformApiError && !(error instanceof ConnectionError)) throw error;
        dropped = error;
      }
      if (++failures > maxRetries) {
        throw dropped instanceof ConnectionError ? dropped : new ConnectionError({ cause: dropped });
      }
      answer = undefined;
      this.reconnects++;
      try {
        // A stream the server ended (an instance that drains ends its streams) is picked up again at
        // once, elsewhere; a connection that failed backs off.
        await sleep(endedByServer && failures === 1 ? Math.random() * ENDED_STREAM_RETRY_MS : retryDelayMs(failures - 1), controller.signal);
        if ((this.runId === undefined || this.userId === undefined) && this.init.resolveRun) {
          const run = await this.init.resolveRun();
          this.runId = run.id;
          this.userId = run.user_id;
        }
      } catch (error) {
        if (controller.signal.aborted || error instanceof UserAbortError) return;
        throw error;
      }
      if (this.runId === undefined) {
        throw dropped instanceof ConnectionError ? dropped : new ConnectionError({ cause: dropped });
      }
    }
  }

  /**
   * Where the run's latest request begins: the id of the `done` before it (undefined: the log's start).
   * Each GET …/events ends at the first `done` after its cursor, so the log is read request by request
   * until a cursor with nothing after it (that connection ends at once: the run is over). A request
   * still running is read to its end first, so such a stream starts late, but with every frame.
   */
  private async latestRequestStart(): Promise<string | undefined> {
    let start: string | undefined;
    let from: string | undefined;
    for (;;) {
      let seen = false;
      let done: string | undefined;
      for await (const message of this.messages(await this.openEvents(from))) {
        seen = true;
        if (message.id !== undefined && isDoneMessage(message)) {
          done = message.id;
          break;
        }
      }
      if (!seen) return start;
      if (done === undefined) throw new ConnectionError({ message: "the stream ended before the request's done frame" });
      start = from;
      from = done;
    }
  }

  private openEvents(lastEventId = this.lastEventId): Promise<Answer> {
    const { transport, controller, options } = this.init;
    return transport.send(
      {
        method: "GET",
        path: `/runs/${this.runId}/events`,
        query: typeof this.userId === "string" ? { user_id: this.userId } : {},
        userId: "query",
        stream: true,
      },
      {
        ...options,
        signal: controller.signal,
        headers: { ...options.headers, ...(lastEventId !== undefined ? { "last-event-id": lastEventId } : {}) },
      },
    );
  }

  /** The SSE messages of one connection; a silent connection is cut after the idle timeout. */
  private async *messages(answer: Answer): AsyncGenerator<EventSourceMessage> {
    // 204: the run is over and nothing follows the cursor, as an empty stream would say.
    if (answer.response.status === 204) return;
    const body = answer.response.body;
    if (!body) throw new ConnectionError({ message: "the stream has no body" });
    const connection = answer.connection ?? new AbortController();
    const stop = () => connection.abort();
    this.init.controller.signal.addEventListener("abort", stop, { once: true });
    const idleMs = this.init.idleTimeoutMs ?? IDLE_TIMEOUT_MS;
    let idle: ReturnType<typeof setTimeout> | undefined;
    let cancelRead: (() => void) | undefined;
    const armIdle = () => {
      clearTimeout(idle);
      idle = setTimeout(() => cancelRead?.(), idleMs);
    };
    // Every chunk, keep-alive comments included, proves the connection alive.
    const alive = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, out) {
        armIdle();
        out.enqueue(chunk);
      },
    });
    const reader = body
      .pipeThrough(alive)
      // (TypeScript's DOM types give TextDecoderStream a wider input than the bytes it gets here.)
      .pipeThrough(new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>)
      .pipeThrough(new EventSourceParserStream())
      .getReader();
    const silent = new Promise<never>((_, reject) => {
      cancelRead = () => reject(new ConnectionError({ message: `no data for ${idleMs} ms` }));
    });
    silent.catch(() => {});
    armIdle();
    try {
      for (;;) {
        const { value, done } = await Promise.race([reader.read(), silent]);
        if (done) return;
        yield value;
      }
    } finally {
      clearTimeout(idle);
      this.init.controller.signal.removeEventListener("abort", stop);
      connection.abort();
      await reader.cancel().catch(() => {});
    }
  }
}

function isDoneMessage(message: EventSourceMessage): boolean {
  try {
    return normalizeFrame(JSON.parse(message.data))?.type === "done";
  } catch {
    return false;
  }
}
