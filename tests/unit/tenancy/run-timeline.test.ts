// The run view's timeline: turns, the agent's text, tool calls and their results, requests for a
// person (with their outcome from the permission list), pauses and resumes, in the order they
// happened, each with its start and duration.
import { describe, expect, it } from "vitest";
import type { PermissionRequest, RunFrame } from "@inlay/core/platform-client";
import { buildTimeline } from "@/server/framework/tenancy/run-timeline";

const permission = (fields: Partial<PermissionRequest> & Pick<PermissionRequest, "request_id" | "kind" | "tool_name">): PermissionRequest => ({
  app: null,
  input: {},
  status: "allowed",
  answer: null,
  remember: false,
  created_at: "2026-01-01T00:00:00.000Z",
  resolved_at: "2026-01-01T00:00:05.000Z",
  ...fields,
});

const text = (value: string): RunFrame => ({ type: "content_block_delta", id: "t", delta: { type: "text_delta", text: value } });
const done: RunFrame = { type: "done", completion_state: "complete", stop_reason: "end_turn", message_count: 2 };

const at = (second: number) => `2026-01-01T00:00:${String(second).padStart(2, "0")}.000Z`;
const run = (status: "completed" | "failed" | "paused", error: string | null = null) => ({ status, error, created_at: at(0) });

describe("buildTimeline", () => {
  it("puts each step where it happened, with its start and duration: the call, its approval and pause, the resume, then the result", () => {
    // The log as a run in approval mode writes it: the model's text and tool call, the pause with the
    // approval, the resume once it is allowed, the tool's result, the answer.
    const frames: RunFrame[] = [
      { type: "run_status", status: "running", at: at(0) },
      text("Let me "),
      text("check."),
      { type: "tool_use", id: "c1", name: "calculator", input: { expression: "6*7" }, at: at(2) },
      { type: "permission_request", request_id: "r1", tool_name: "calculator", input: { expression: "6*7" }, kind: "tool", at: at(3) },
      { type: "run_status", status: "awaiting_approval", at: at(3) },
      { type: "run_status", status: "running", at: at(8) },
      { type: "tool_result", tool_use_id: "c1", content: '{"result":42}', result: { result: 42 }, at: at(9) },
      text("It is 42."),
      { type: "run_status", status: "completed", at: at(11) },
      { ...done, at: at(11) },
    ];
    const timeline = buildTimeline(
      [
        { role: "user", text: "what is 6*7?" },
        { role: "assistant", text: "Let me check.It is 42." },
        { role: "user", text: "thanks" },
        { role: "assistant", text: "Echo: thanks" },
      ],
      [frames, [{ type: "run_status", status: "running", at: at(20) }, text("Echo: thanks"), { type: "run_status", status: "completed", at: at(21) }, { ...done, at: at(21) }]],
      [permission({ request_id: "r1", kind: "tool", tool_name: "calculator", input: { expression: "6*7" }, status: "allowed", created_at: at(3), resolved_at: at(7) })],
      run("completed"),
    );
    expect(timeline).toEqual([
      { type: "message", role: "user", text: "what is 6*7?", at: at(0), durationMs: null },
      { type: "message", role: "assistant", text: "Let me check.", at: at(0), durationMs: 2000 },
      { type: "tool_call", id: "c1", name: "calculator", input: { expression: "6*7" }, done: true, at: at(2), durationMs: 7000 },
      expect.objectContaining({ type: "request", kind: "tool", requestId: "r1", status: "allowed", resolvedAt: at(7), at: at(3), durationMs: 4000 }),
      { type: "status", status: "awaiting_approval", error: null, at: at(3), durationMs: 5000 },
      { type: "status", status: "running", error: null, resumed: true, at: at(8), durationMs: null },
      { type: "tool_result", id: "c1", name: "calculator", result: { result: 42 }, at: at(9), durationMs: null },
      { type: "message", role: "assistant", text: "It is 42.", at: at(9), durationMs: 2000 },
      { type: "status", status: "completed", error: null, at: at(11), durationMs: null },
      { type: "message", role: "user", text: "thanks", at: at(20), durationMs: null },
      { type: "message", role: "assistant", text: "Echo: thanks", at: at(20), durationMs: 1000 },
      { type: "status", status: "completed", error: null, at: at(21), durationMs: null },
    ]);
  });

  it("keeps the log's order without times when its frames have none (written before they carried them)", () => {
    const timeline = buildTimeline(
      [{ role: "user", text: "go" }],
      [[{ type: "tool_use", id: "c1", name: "search", input: {} }, { type: "tool_result", tool_use_id: "c1", content: "[]", result: [] }, text("Nothing."), done]],
      [],
      run("completed"),
    );
    expect(timeline).toEqual([
      { type: "message", role: "user", text: "go", at: at(0), durationMs: null },
      { type: "tool_call", id: "c1", name: "search", input: {}, done: true, at: null, durationMs: null },
      { type: "tool_result", id: "c1", name: "search", result: [], at: null, durationMs: null },
      { type: "message", role: "assistant", text: "Nothing.", at: at(0), durationMs: null },
    ]);
  });

  it("shows a going run's current turn and what it waits on (a question, a connection) after the requests read", () => {
    const timeline = buildTimeline(
      [{ role: "user", text: "book it" }],
      [],
      [
        permission({ request_id: "q1", kind: "question", tool_name: "AskUserQuestion", status: "allowed", answer: { "Which day?": "Monday" } }),
        permission({ request_id: "c1", kind: "connection", tool_name: "calendar_create", app: "calendar", status: "pending", resolved_at: null }),
      ],
      run("paused"),
    );
    expect(timeline).toEqual([
      { type: "message", role: "user", text: "book it", at: null, durationMs: null },
      expect.objectContaining({ type: "request", kind: "question", answer: { "Which day?": "Monday" }, at: "2026-01-01T00:00:00.000Z", durationMs: 5000 }),
      expect.objectContaining({ type: "request", kind: "connection", app: "calendar", status: "pending", durationMs: null }),
      { type: "status", status: "paused", error: null, at: null, durationMs: null },
    ]);
  });

  it("leaves a tool call without a result as not done", () => {
    const timeline = buildTimeline(
      [{ role: "user", text: "go" }],
      [[{ type: "tool_use", id: "c9", name: "search", input: { q: "x" }, at: at(1) }, { type: "run_status", status: "failed", error: "boom", at: at(4) }, done]],
      [],
      run("failed", "boom"),
    );
    expect(timeline.slice(1)).toEqual([
      { type: "tool_call", id: "c9", name: "search", input: { q: "x" }, done: false, at: at(1), durationMs: null },
      { type: "status", status: "failed", error: "boom", at: at(4), durationMs: null },
    ]);
  });
});
