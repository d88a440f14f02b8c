// Both frame forms of the spec, read from SSE text into the one union the client yields.
import { describe, expect, it } from "vitest";
import { RunStream, normalizeFrame } from "@inlay/core/platform-client";
import { Transport } from "@inlay/core/platform-client/transport";

function streamOf(sse: string): RunStream {
  const response = new Response(sse, { headers: { "content-type": "text/event-stream", "x-run-id": "7" } });
  return new RunStream({
    transport: new Transport({ baseUrl: "http://127.0.0.1:9/api/v2", apiKey: "unused", maxRetries: 0 }),
    initial: { response, attempts: 1, replay: false },
    controller: new AbortController(),
    options: {},
  });
}

describe("run frames", () => {
  it("keeps a done frame's output_data, and adds none where the run had no schema", () => {
    const withSchema = { type: "done", completion_state: "completed", stop_reason: "stop", message_count: 2, output_data: { ok: true } };
    expect(normalizeFrame(withSchema)).toEqual(withSchema);
    expect(normalizeFrame({ ...withSchema, output_data: null })).toMatchObject({ output_data: null });
    expect(normalizeFrame({ type: "done", stop_reason: "stop" })).not.toHaveProperty("output_data");
  });

  it("keeps a done frame's time (Inlay's `at`), and adds none where it had none", () => {
    const timed = { type: "done", completion_state: "completed", stop_reason: "stop", message_count: 2, at: "2026-01-01T00:00:01.000Z" };
    expect(normalizeFrame(timed)).toEqual(timed);
    expect(normalizeFrame({ type: "done", stop_reason: "stop" })).not.toHaveProperty("at");
  });

  it("normalises the earlier form (text-delta, tool-call-start, tool-result-end, done) to the current one", async () => {
    const stream = streamOf(
      [
        'id: 1\ndata: {"type":"text-delta","delta":"Hel"}\n\n',
        ": keep-alive\n\n",
        'id: 2\ndata: {"type":"text-delta","delta":"lo"}\n\n',
        'id: 3\ndata: {"type":"tool-call-start","toolName":"calculator","toolCallId":"c1"}\n\n',
        'id: 4\ndata: {"type":"tool-result-end","toolCallId":"c1","result":{"result":42}}\n\n',
        'id: 5\ndata: {"type":"some-future-frame"}\n\n',
        'id: 6\ndata: {"type":"done","stop_reason":"stop"}\n\n',
        'id: 7\ndata: {"type":"text-delta","delta":"after done: never read"}\n\n',
      ].join(""),
    );
    expect(await stream.toArray()).toEqual([
      { type: "content_block_delta", id: "", delta: { type: "text_delta", text: "Hel" } },
      { type: "content_block_delta", id: "", delta: { type: "text_delta", text: "lo" } },
      { type: "tool_use", id: "c1", name: "calculator", input: undefined },
      { type: "tool_result", tool_use_id: "c1", content: '{"result":42}', result: { result: 42 } },
      { type: "done", completion_state: "completed", stop_reason: "stop", message_count: 0 },
    ]);
    expect(stream.runId).toBe(7);
    expect(stream.lastEventId).toBe("6");
  });

  it("passes the current form through and reads completion from an earlier done's stop_reason", () => {
    const current = { type: "done", completion_state: "failed", stop_reason: "error", message_count: 3 };
    expect(normalizeFrame(current)).toEqual(current);
    expect(normalizeFrame({ type: "done", stop_reason: "error" })).toMatchObject({ completion_state: "failed" });
    expect(normalizeFrame({ type: "done", stop_reason: "cancelled" })).toMatchObject({ completion_state: "cancelled" });
    expect(normalizeFrame({ type: "run_status", status: "running" })).toEqual({ type: "run_status", status: "running" });
    expect(normalizeFrame("text")).toBeUndefined();
  });
});
