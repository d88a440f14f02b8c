// The executor's pure steps: the model's stream parts as frames and requests (runtime/stream-frames.ts),
// and people's decisions as the model's next tool message (runtime/resume-decisions.ts).
import type { ModelMessage, TextStreamPart, ToolSet } from "ai";
import { describe, expect, it } from "vitest";
import { ASK_USER_QUESTION, PLAN_APPROVAL, type RunFrame } from "@inlay/core/schemas/runs";
import { decisionsFor, outstandingCalls } from "@/server/platform/runtime/resume-decisions";
import { SecretRedactor } from "@/server/platform/infrastructure/secret-redactor";
import { StreamFrames } from "@/server/platform/runtime/stream-frames";

type Part = TextStreamPart<ToolSet>;
const part = (value: Record<string, unknown>) => value as unknown as Part;
const ids = () => {
  let n = 0;
  return () => `perm_${++n}`;
};
const questionTool = { [ASK_USER_QUESTION]: {} } as unknown as ToolSet;

describe("StreamFrames", () => {
  it("writes text deltas, tool calls and results as frames, and nothing for quiet parts", () => {
    const reader = new StreamFrames({ tools: {}, approvedCallIds: new Set(), connectionNeeded: new Map() });
    const frames = [
      part({ type: "start-step" }),
      part({ type: "text-delta", id: "t1", text: "Hello" }),
      part({ type: "tool-call", toolCallId: "c1", toolName: "calc", input: { x: 1 } }),
      part({ type: "tool-result", toolCallId: "c1", toolName: "calc", output: { y: 2 } }),
      part({ type: "tool-error", toolCallId: "c2", toolName: "calc", error: new Error("nope") }),
    ].flatMap((p) => reader.read(p));
    expect(frames).toEqual([
      { type: "content_block_delta", id: "t1", delta: { type: "text_delta", text: "Hello" } },
      { type: "tool_use", id: "c1", name: "calc", input: { x: 1 } },
      { type: "tool_result", tool_use_id: "c1", content: '{"y":2}', result: { y: 2 } },
      { type: "tool_result", tool_use_id: "c2", content: "Error: nope", result: { error: "Error: nope" } },
    ]);
    expect(reader.requests).toEqual([]);
    expect(reader.failure).toBeUndefined();
  });

  it("collects questions only when the pass offers AskUserQuestion, and tells a plan from a question", () => {
    const ask = (id: string, question: string) => part({ type: "tool-call", toolCallId: id, toolName: ASK_USER_QUESTION, input: { questions: [{ question }] } });
    const offered = new StreamFrames({ tools: questionTool, approvedCallIds: new Set(), connectionNeeded: new Map(), newId: ids() });
    offered.read(ask("q1", "Which colour?"));
    offered.read(ask("q2", PLAN_APPROVAL));
    expect(offered.questions.map(({ id, kind, toolCallId }) => ({ id, kind, toolCallId }))).toEqual([
      { id: "perm_1", kind: "question", toolCallId: "q1" },
      { id: "perm_2", kind: "plan", toolCallId: "q2" },
    ]);
    const withheld = new StreamFrames({ tools: {}, approvedCallIds: new Set(), connectionNeeded: new Map() });
    expect(withheld.read(ask("q3", "Which colour?"))).toHaveLength(1);
    expect(withheld.requests).toEqual([]);
  });

  it("turns approval requests into tool or connection requests, approvals before questions, with their pause frames", () => {
    const reader = new StreamFrames({
      tools: questionTool,
      approvedCallIds: new Set(),
      connectionNeeded: new Map([["c2", { app: "codehost", appName: "Code host", status: "missing" as const }]]),
      newId: ids(),
    });
    reader.read(part({ type: "tool-call", toolCallId: "q1", toolName: ASK_USER_QUESTION, input: { questions: [{ question: "Why?" }] } }));
    reader.read(part({ type: "tool-call", toolCallId: "c1", toolName: "delete_file", input: { path: "a" } }));
    reader.read(part({ type: "tool-approval-request", approvalId: "a1", toolCall: { toolCallId: "c1", toolName: "delete_file", input: { path: "a" } } }));
    reader.read(part({ type: "tool-approval-request", approvalId: "a2", toolCall: { toolCallId: "c2", toolName: "codehost_issues", input: {} } }));
    expect(reader.requests.map(({ id, kind, toolCallId, app }) => ({ id, kind, toolCallId, app }))).toEqual([
      { id: "perm_2", kind: "tool", toolCallId: "a1", app: undefined },
      { id: "perm_3", kind: "connection", toolCallId: "a2", app: "codehost" },
      { id: "perm_1", kind: "question", toolCallId: "q1", app: undefined },
    ]);
    expect(reader.pauseFrames()).toEqual([
      { type: "permission_request", request_id: "perm_2", tool_name: "delete_file", input: { path: "a" }, kind: "tool" },
      { type: "permission_request", request_id: "perm_3", tool_name: "codehost_issues", input: {}, kind: "connection", app: "codehost", app_name: "Code host", connection_status: "missing" },
      { type: "permission_request", request_id: "perm_1", tool_name: ASK_USER_QUESTION, input: { questions: [{ question: "Why?" }] }, kind: "question" },
      { type: "run_status", status: "awaiting_approval" },
    ]);
  });

  it("keeps the results of calls approved before the pass, and of no other call", () => {
    const reader = new StreamFrames({ tools: {}, approvedCallIds: new Set(["c1", "c2"]), connectionNeeded: new Map() });
    reader.read(part({ type: "tool-result", toolCallId: "c1", toolName: "calc", output: 3 }));
    reader.read(part({ type: "tool-error", toolCallId: "c2", toolName: "calc", error: "boom" }));
    reader.read(part({ type: "tool-result", toolCallId: "c3", toolName: "calc", output: 4 }));
    expect(reader.approvedResults).toEqual([
      { type: "tool-result", toolCallId: "c1", toolName: "calc", output: { type: "json", value: 3 } },
      { type: "tool-result", toolCallId: "c2", toolName: "calc", output: { type: "error-text", value: "boom" } },
    ]);
  });

  it("takes a stream's error part as the pass's failure", () => {
    const reader = new StreamFrames({ tools: {}, approvedCallIds: new Set(), connectionNeeded: new Map() });
    expect(reader.read(part({ type: "error", error: "model overloaded" }))).toEqual([]);
    expect(reader.failure?.message).toBe("model overloaded");
  });

  describe("with secret values", () => {
    const redactor = new SecretRedactor(["open sesame 42"]);
    const texts = (frames: RunFrame[]) => frames.map((frame) => (frame.type === "content_block_delta" ? frame.delta.text : `<${frame.type}>`));
    const words = (text: string) => text.split(/(?<= )/).map((word) => part({ type: "text-delta", id: "t1", text: word }));

    it("redacts a value split across deltas, holding back only what could start it, released at the block's end", () => {
      const reader = new StreamFrames({ tools: {}, approvedCallIds: new Set(), connectionNeeded: new Map(), redactor });
      const perPart = [...words("Echo: open sesame 42 and open"), part({ type: "text-end", id: "t1" })].map((p) => texts(reader.read(p)));
      expect(perPart).toEqual([["Echo: "], [], [], ["[REDACTED] "], ["and "], [], ["open"]]);
    });

    it("releases held text before a tool call, and redacts the call's input and result", () => {
      const reader = new StreamFrames({ tools: {}, approvedCallIds: new Set(), connectionNeeded: new Map(), redactor });
      const frames = [
        ...words("try open "),
        part({ type: "tool-call", toolCallId: "c1", toolName: "read", input: { path: "x" } }),
        part({ type: "tool-result", toolCallId: "c1", toolName: "read", output: { text: "open sesame 42" } }),
      ].flatMap((p) => reader.read(p));
      expect(texts(frames)).toEqual(["try ", "open ", "<tool_use>", "<tool_result>"]);
      // The sink redacts structured frames (frame-sink.ts): here the reader leaves them as they are.
      expect(redactor.frame(frames.at(-1)!)).toMatchObject({ content: '{"text":"[REDACTED]"}', result: { text: "[REDACTED]" } });
    });

    it("releases what a block still holds when the stream ends", () => {
      const reader = new StreamFrames({ tools: {}, approvedCallIds: new Set(), connectionNeeded: new Map(), redactor });
      expect(words("ok open sesame").flatMap((p) => texts(reader.read(p)))).toEqual(["ok "]);
      expect(texts(reader.end())).toEqual(["open sesame"]);
      expect(reader.end()).toEqual([]);
    });
  });

});

describe("decisionsFor", () => {
  const waiting: ModelMessage[] = [
    { role: "user", content: "go" },
    {
      role: "assistant",
      content: [
        { type: "tool-call", toolCallId: "c1", toolName: "delete_file", input: {} },
        { type: "tool-approval-request", approvalId: "a1", toolCallId: "c1" },
        { type: "tool-call", toolCallId: "c2", toolName: "send_mail", input: {} },
        { type: "tool-approval-request", approvalId: "a2", toolCallId: "c2" },
        { type: "tool-call", toolCallId: "q1", toolName: ASK_USER_QUESTION, input: {} },
      ],
    },
  ];

  it("answers approvals (a denied call with its result, so a later reply finds every call answered), then questions, and names the approved calls", () => {
    const decided = new Map([
      ["a1", { status: "allowed" }],
      ["a2", { status: "denied" }],
      ["q1", { status: "answered", answer: { colour: "blue" } }],
    ]);
    const decisions = decisionsFor(outstandingCalls(waiting), decided);
    expect(decisions.message).toEqual({
      role: "tool",
      content: [
        { type: "tool-approval-response", approvalId: "a1", approved: true },
        { type: "tool-approval-response", approvalId: "a2", approved: false },
        { type: "tool-result", toolCallId: "c2", toolName: "send_mail", output: { type: "execution-denied" } },
        { type: "tool-result", toolCallId: "q1", toolName: ASK_USER_QUESTION, output: { type: "json", value: { answers: { colour: "blue" } } } },
      ],
    });
    expect([...decisions.approvedCallIds]).toEqual(["c1"]);
    expect(decisions.frames).toEqual([{ type: "tool_result", tool_use_id: "q1", content: '{"answers":{"colour":"blue"}}', result: { answers: { colour: "blue" } } }]);
  });

  it("refuses to resume past a request nobody decided", () => {
    const pending = new Map([
      ["a1", { status: "allowed" }],
      ["a2", { status: "pending" }],
    ]);
    expect(() => decisionsFor(outstandingCalls(waiting), pending)).toThrow("undecided approval");
    const unanswered = new Map([
      ["a1", { status: "allowed" }],
      ["a2", { status: "allowed" }],
    ]);
    expect(() => decisionsFor(outstandingCalls(waiting), unanswered)).toThrow("unanswered question");
  });

  it("has nothing to say when the run waited for nothing", () => {
    expect(outstandingCalls([{ role: "user", content: "hi" }])).toEqual({ calls: [], approvals: [] });
    expect(decisionsFor({ calls: [], approvals: [] }, new Map())).toEqual({ approvedCallIds: new Set(), frames: [] });
  });
});
