// The bridge's conversion of run frames (sequences recorded from a real platform running the sim
// model, fixtures/recorded-frames.json) into the UI message stream useChat reads.
import { readFileSync } from "node:fs";
import path from "node:path";
import { readUIMessageStream } from "ai";
import { describe, expect, it } from "vitest";
import type { Run, RunFrame } from "@inlay/core/platform-client";
import { createRunTranslator, translateFrames } from "@inlay/core/chat/run-frames";
import type { ChatChunk, ChatDataTypes, ChatMessage } from "@inlay/core/chat/types";

type Recorded = Record<string, { frames: [string | undefined, RunFrame][]; run?: Run }>;
const recorded = JSON.parse(readFileSync(path.join(import.meta.dirname, "fixtures/recorded-frames.json"), "utf8")) as Recorded;

function chunksOf(name: string, runId = 1) {
  const { frames, run } = recorded[name]!;
  return translateFrames({ messageId: "m1", runId, now: () => 0 }, frames, run);
}

async function messageOf(chunks: ChatChunk[]): Promise<ChatMessage> {
  const stream = new ReadableStream<ChatChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  let last: ChatMessage | undefined;
  for await (const message of readUIMessageStream<ChatMessage>({ stream, terminateOnError: true })) last = message;
  if (!last) throw new Error("no message");
  return structuredClone(last);
}

const text = (message: ChatMessage) =>
  message.parts.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("|");
function data<K extends keyof ChatDataTypes & string>(message: ChatMessage, kind: K): ChatDataTypes[K][] {
  return message.parts.flatMap((part) => (part.type === `data-${kind}` ? [(part as unknown as { data: ChatDataTypes[K] }).data] : []));
}

describe("run frames → UI message stream", () => {
  it("streams text as deltas of one part, then finishes with the run's metadata and usage", async () => {
    const chunks = chunksOf("echo", 42);
    expect(chunks[0]).toEqual({ type: "start", messageId: "m1", messageMetadata: { runId: 42, createdAt: 0 } });
    expect(chunks.filter((chunk) => chunk.type === "text-delta").map((chunk) => (chunk as { delta: string }).delta)).toEqual([
      "Echo: ",
      "hello ",
      "**there** ",
      "world",
    ]);
    expect(chunks.at(-1)).toMatchObject({ type: "finish", finishReason: "stop" });
    const message = await messageOf(chunks);
    expect(message.id).toBe("m1");
    expect(text(message)).toBe("Echo: hello **there** world");
    expect(message.metadata).toMatchObject({
      runId: 42,
      status: "completed",
      completionState: "completed",
      lastEventId: "7",
      usage: recorded.echo!.run!.usage,
    });
  });

  it("shows a tool call with its input and result", async () => {
    const message = await messageOf(chunksOf("tool"));
    const tool = message.parts.find((part) => part.type === "dynamic-tool");
    expect(tool).toMatchObject({
      toolName: "calculator",
      toolCallId: "sim-call-1",
      state: "output-available",
      input: { expression: "6*7" },
      output: { result: 42 },
    });
    // The tool part comes before the text that follows it.
    expect(message.parts.findIndex((part) => part.type === "dynamic-tool")).toBeLessThan(
      message.parts.findIndex((part) => part.type === "text"),
    );
  });

  it("asks for approval while the run waits, and shows it allowed once the tool ran", async () => {
    const { frames, run } = recorded["approval-allow"]!;
    const paused = frames.findIndex(([, frame]) => frame.type === "run_status" && frame.status === "awaiting_approval");
    const translator = createRunTranslator({ messageId: "m1", runId: 1 });
    const before = [...translator.start(), ...frames.slice(0, paused + 1).flatMap(([id, frame]) => translator.frame(frame, id))];
    const waiting = await messageOf(before);
    expect(data(waiting, "approval")).toEqual([
      {
        requestId: (frames.find(([, f]) => f.type === "permission_request")![1] as { request_id: string }).request_id,
        toolName: "calculator",
        toolCallId: "sim-call-1",
        input: { expression: "6*7" },
        state: "pending",
      },
    ]);
    expect(waiting.metadata?.status).toBe("awaiting_approval");

    const after = [...frames.slice(paused + 1).flatMap(([id, frame]) => translator.frame(frame, id)), ...translator.finish(run)];
    const done = await messageOf([...before, ...after]);
    expect(data(done, "approval")).toHaveLength(1);
    expect(data(done, "approval")[0]!.state).toBe("allowed");
    expect(done.parts.find((part) => part.type === "dynamic-tool")).toMatchObject({ state: "output-available", output: { result: 42 } });
    expect(text(done)).toBe('Tool calculator returned {"result":42}');
  });

  it("marks a denied call denied (the platform sends no result for it)", async () => {
    const message = await messageOf(chunksOf("approval-deny"));
    expect(data(message, "approval")[0]!.state).toBe("denied");
    expect(message.parts.find((part) => part.type === "dynamic-tool")).toMatchObject({ state: "output-denied" });
    expect(text(message)).toBe("Tool calculator was denied");
  });

  it("turns AskUserQuestion into a question card with its options, answered by the tool result", async () => {
    const message = await messageOf(chunksOf("ask"));
    expect(message.parts.some((part) => part.type === "dynamic-tool")).toBe(false);
    const [question] = data(message, "question");
    expect(question).toMatchObject({
      toolCallId: "sim-call-1",
      questions: [{ question: "Which colour?", options: [{ label: "Red" }, { label: "Blue" }] }],
      state: "answered",
      answers: { "Which colour?": "Blue" },
    });
    expect(text(message)).toBe("You chose Blue");
  });

  it("turns plan mode's approval into a plan card holding the plan text", async () => {
    const message = await messageOf(chunksOf("plan"));
    const [plan] = data(message, "plan");
    expect(plan!.plan).toMatch(/^1\. Understand the request: "Write a haiku"\.\n2\. Answer/);
    expect(plan!.options).toEqual(["Approve", "Revise"]);
    expect(plan!.state).toBe("approved");
    // The plan's text part (the first one) is the one the card stands for, so the UI can hide it.
    expect(plan!.textId).toBe("m1-t0");
    // The answer's text is a new part, after the card.
    expect(text(message)).toContain("|Echo: Write a haiku");
  });

  it("shows the structured output, from the done frame or else from the run", async () => {
    const fromRun = await messageOf(chunksOf("output"));
    expect(data(fromRun, "output")).toEqual([{ data: { score: 0, title: "sim" } }]);

    const frames = recorded.output!.frames.map(([id, frame]) =>
      [id, frame.type === "done" ? { ...frame, output_data: { title: "t", score: 1 } } : frame] as const,
    );
    const fromFrame = await messageOf(translateFrames({ messageId: "m1" }, frames, recorded.output!.run));
    expect(data(fromFrame, "output")).toEqual([{ data: { title: "t", score: 1 } }]);
  });

  it("explains a failed run and finishes with reason error", async () => {
    const chunks = chunksOf("fail");
    expect(chunks.at(-1)).toMatchObject({ type: "finish", finishReason: "error" });
    const message = await messageOf(chunks);
    expect(data(message, "error")).toEqual([{ kind: "run_failed", message: "boom" }]);
    expect(message.metadata).toMatchObject({ status: "failed", completionState: "failed" });
  });

  it("keeps what was said before a cancel and ends cancelled", async () => {
    const message = await messageOf(chunksOf("cancel"));
    expect(text(message)).toBe("alpha ");
    expect(message.metadata).toMatchObject({ status: "cancelled", completionState: "cancelled" });
  });

  it("gives a reply's message the cursor it started after, so the log replays exactly it", async () => {
    const first = recorded["reply-first"]!.frames;
    const firstMessage = await messageOf(translateFrames({ messageId: "a" }, first));
    const cursor = firstMessage.metadata!.lastEventId!;
    expect(cursor).toBe(first.at(-1)![0]);
    const reply = await messageOf(translateFrames({ messageId: "b", runId: 5, cursor }, recorded.reply!.frames));
    expect(reply.metadata).toMatchObject({ runId: 5, cursor, lastEventId: recorded.reply!.frames.at(-1)![0] });
    expect(text(reply)).toBe("Echo: second");
  });

  it("ends a stream cut before done with pending requests expired and reason other", async () => {
    const { frames } = recorded["approval-allow"]!;
    const cut = frames.slice(0, frames.findIndex(([, frame]) => frame.type === "permission_request") + 1);
    const translator = createRunTranslator({ messageId: "m1" });
    const chunks = [
      ...translator.start(),
      ...cut.flatMap(([id, frame]) => translator.frame(frame, id)),
      ...translator.fail({ kind: "connection", message: "lost" }),
      ...translator.finish(),
    ];
    expect(chunks.at(-1)).toMatchObject({ type: "finish", finishReason: "other" });
    const message = await messageOf(chunks);
    expect(data(message, "approval")[0]!.state).toBe("expired");
    expect(data(message, "error")).toEqual([{ kind: "connection", message: "lost" }]);
    expect(translator.finish()).toEqual([]);
  });

  describe("an app connection the run waits for (permission_request kind connection)", () => {
    const call: RunFrame = { type: "tool_use", id: "call-1", name: "codehost__list_repos", input: { owner: "acme" } };
    const request: RunFrame = {
      type: "permission_request",
      request_id: "req-1",
      tool_name: "codehost__list_repos",
      input: { owner: "acme" },
      kind: "connection",
      app: "codehost",
      app_name: "Code host",
      connection_status: "missing",
    };
    const paused: RunFrame = { type: "run_status", status: "awaiting_approval" };
    const done: RunFrame = { type: "done", completion_state: "completed", stop_reason: "end_turn", message_count: 2 };
    const framesOf = (...frames: RunFrame[]) => frames.map((frame, index) => [String(index + 1), frame] as const);

    it("shows a connect card (not an approval) while the run waits, and the call as waiting", async () => {
      const translator = createRunTranslator({ messageId: "m1", runId: 1 });
      const chunks = [...translator.start(), ...framesOf(call, request, paused).flatMap(([id, frame]) => translator.frame(frame, id))];
      const waiting = await messageOf(chunks);
      expect(data(waiting, "connection")).toEqual([
        {
          requestId: "req-1",
          toolName: "codehost__list_repos",
          toolCallId: "call-1",
          app: "codehost",
          appName: "Code host",
          reason: "missing",
          state: "pending",
        },
      ]);
      expect(data(waiting, "approval")).toEqual([]);
      expect(waiting.metadata?.status).toBe("awaiting_approval");
    });

    it("marks it connected when the run resumes and the call returns", async () => {
      const message = await messageOf(
        translateFrames(
          { messageId: "m1", runId: 1 },
          framesOf(
            call,
            request,
            paused,
            { type: "run_status", status: "running" },
            { type: "tool_result", tool_use_id: "call-1", content: "[]", result: { repos: ["inlay"] } },
            { type: "content_block_delta", id: "b", delta: { type: "text_delta", text: "You have 1 repository." } },
            done,
          ),
        ),
      );
      expect(data(message, "connection")[0]!.state).toBe("connected");
      expect(message.parts.find((part) => part.type === "dynamic-tool")).toMatchObject({ state: "output-available" });
      expect(text(message)).toBe("You have 1 repository.");
    });

    it("marks it connected and shows an approval card when the same request then asks for the call's approval", async () => {
      const asked: RunFrame = { type: "permission_request", request_id: "req-1", tool_name: "codehost__list_repos", input: { owner: "acme" }, kind: "tool" };
      const translator = createRunTranslator({ messageId: "m1", runId: 1 });
      const message = await messageOf([...translator.start(), ...framesOf(call, request, paused, asked).flatMap(([id, frame]) => translator.frame(frame, id))]);
      expect(data(message, "connection")[0]!.state).toBe("connected");
      expect(data(message, "approval")).toEqual([
        { requestId: "req-1", toolName: "codehost__list_repos", toolCallId: "call-1", input: { owner: "acme" }, state: "pending" },
      ]);
    });

    it("marks it declined when the person says Not now (the call fails cleanly) or the request ends", async () => {
      const failed = await messageOf(
        translateFrames(
          { messageId: "m1", runId: 1 },
          framesOf(call, request, paused, { type: "tool_result", tool_use_id: "call-1", content: "", result: { error: "codehost is not connected" } }, done),
        ),
      );
      expect(data(failed, "connection")[0]!.state).toBe("declined");
      const ended = await messageOf(translateFrames({ messageId: "m1", runId: 1 }, framesOf(call, request, paused, done)));
      expect(data(ended, "connection")[0]!.state).toBe("declined");
      expect(ended.parts.find((part) => part.type === "dynamic-tool")).toMatchObject({ state: "output-denied" });
      const cut = await messageOf(translateFrames({ messageId: "m1", runId: 1 }, framesOf(call, request)));
      expect(data(cut, "connection")[0]!.state).toBe("expired");
    });

    it("reads the app from the tool name, and an expired connection, when the frame says less", async () => {
      const bare: RunFrame = { type: "permission_request", request_id: "r2", tool_name: "mail__send", input: {}, kind: "connection", connection_status: "expired" };
      const message = await messageOf(translateFrames({ messageId: "m1" }, framesOf(bare)));
      expect(data(message, "connection")[0]).toMatchObject({ app: "mail", appName: "mail", reason: "expired" });
    });
  });
});
