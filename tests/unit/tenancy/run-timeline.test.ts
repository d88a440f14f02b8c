// The run view's timeline: turns, the agent's text, tool calls with results, requests for a person
// (with their outcome from the permission list) and pauses, in order.
import { describe, expect, it } from "vitest";
import type { PermissionRequest, RunFrame } from "@/lib/platform-client";
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

describe("buildTimeline", () => {
  it("puts each turn before its request's text, tool calls with results, and approvals with their outcome", () => {
    const frames: RunFrame[] = [
      text("Let me "),
      text("check."),
      { type: "permission_request", request_id: "r1", tool_name: "calculator", input: { expression: "6*7" }, kind: "tool" },
      { type: "run_status", status: "awaiting_approval" },
      { type: "run_status", status: "running" },
      { type: "tool_use", id: "c1", name: "calculator", input: { expression: "6*7" } },
      { type: "tool_result", tool_use_id: "c1", content: '{"result":42}', result: { result: 42 } },
      text("It is 42."),
      done,
    ];
    const timeline = buildTimeline(
      [
        { role: "user", text: "what is 6*7?" },
        { role: "assistant", text: "Let me check.It is 42." },
        { role: "user", text: "thanks" },
        { role: "assistant", text: "Echo: thanks" },
      ],
      [frames, [text("Echo: thanks"), done]],
      [permission({ request_id: "r1", kind: "tool", tool_name: "calculator", input: { expression: "6*7" }, status: "allowed" })],
      { status: "completed", error: null },
    );
    expect(timeline).toEqual([
      { type: "message", role: "user", text: "what is 6*7?" },
      { type: "message", role: "assistant", text: "Let me check." },
      expect.objectContaining({ type: "request", kind: "tool", requestId: "r1", toolName: "calculator", status: "allowed", resolvedAt: "2026-01-01T00:00:05.000Z" }),
      { type: "status", status: "awaiting_approval", error: null },
      { type: "tool_call", id: "c1", name: "calculator", input: { expression: "6*7" }, result: { result: 42 }, done: true },
      { type: "message", role: "assistant", text: "It is 42." },
      { type: "message", role: "user", text: "thanks" },
      { type: "message", role: "assistant", text: "Echo: thanks" },
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
      { status: "paused", error: null },
    );
    expect(timeline).toEqual([
      { type: "message", role: "user", text: "book it" },
      expect.objectContaining({ type: "request", kind: "question", answer: { "Which day?": "Monday" } }),
      expect.objectContaining({ type: "request", kind: "connection", app: "calendar", status: "pending" }),
      { type: "status", status: "paused", error: null },
    ]);
  });

  it("leaves a tool call without a result as not done", () => {
    const timeline = buildTimeline(
      [{ role: "user", text: "go" }],
      [[{ type: "tool_use", id: "c9", name: "search", input: { q: "x" } }, { type: "run_status", status: "failed", error: "boom" }, done]],
      [],
      { status: "failed", error: "boom" },
    );
    expect(timeline.slice(1)).toEqual([
      { type: "tool_call", id: "c9", name: "search", input: { q: "x" }, result: null, done: false },
      { type: "status", status: "failed", error: "boom" },
    ]);
  });
});
