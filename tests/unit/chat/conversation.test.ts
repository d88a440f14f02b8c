// What the chat components send the bridge, read from the conversation's messages.
import { describe, expect, it } from "vitest";
import { messageUsage, resumeQuery, runPosition, sendBody } from "@inlay/core/chat/conversation";
import { requestUsage } from "@inlay/core/chat/run-frames";
import type { ChatMessage } from "@inlay/core/chat/types";

const user = (id: string, text: string): ChatMessage => ({ id, role: "user", parts: [{ type: "text", text }] });
const assistant = (id: string, metadata: ChatMessage["metadata"]): ChatMessage => ({ id, role: "assistant", parts: [], metadata });

describe("conversation state", () => {
  it("starts a run for the first message", () => {
    const messages = [user("u1", "hello")];
    expect(runPosition(messages)).toBeUndefined();
    expect(sendBody(messages, { agent: "Support", permissionMode: "approval" })).toEqual({
      agent: "Support",
      message: { id: "u1", role: "user", parts: [{ type: "text", text: "hello" }] },
      permissionMode: "approval",
    });
    expect(resumeQuery(messages)).toBeUndefined();
  });

  it("replies on the run once its latest request has finished, from its last event", () => {
    const messages = [user("u1", "a"), assistant("run-7-0", { runId: 7, lastEventId: "12", completionState: "completed" }), user("u2", "b")];
    expect(sendBody(messages, { agent: "Support" })).toMatchObject({ runId: 7, cursor: "12", message: { id: "u2" } });
    expect(resumeQuery(messages)).toBeUndefined();
  });

  it("reattaches to an unfinished request from the cursor it started after", () => {
    const messages = [user("u1", "a"), assistant("run-7-12", { runId: 7, cursor: "12", status: "awaiting_approval" })];
    expect(runPosition(messages)).toEqual({ runId: 7, cursor: "12", lastEventId: undefined, finished: false });
    expect(resumeQuery(messages)).toBe("runId=7&cursor=12");
    expect(resumeQuery([user("u1", "a"), assistant("run-7-0", { runId: 7, status: "running" })])).toBe("runId=7");
  });

  it("starts a new run when the chat's only message was refused before a run existed", () => {
    const messages = [user("u1", "a"), assistant("refused-u1", {}), user("u2", "b")];
    expect(sendBody(messages, { agent: "Support" })).not.toHaveProperty("runId");
  });
});

describe("a message's usage", () => {
  const usage = (input: number, output: number, cost: string) => ({ input_tokens: input, output_tokens: output, cost_usd: cost });

  it("is the run's usage less what the run had used before the message's request", () => {
    expect(requestUsage(usage(938, 136, "0.000946"), usage(469, 68, "0.000473"))).toEqual(usage(469, 68, "0.000473"));
    expect(requestUsage(usage(10, 5, "0.000100"), undefined)).toEqual(usage(10, 5, "0.000100"));
  });

  it("shows each message's own; a total only the run knows is the conversation's, or worked out from the messages before it", () => {
    const first = assistant("a1", { runId: 7, usage: usage(469, 68, "0.000473") });
    const reattached = assistant("a2", { runId: 7, runUsage: usage(1000, 150, "0.001201") });
    expect(messageUsage([first], 0)).toEqual({ scope: "message", usage: usage(469, 68, "0.000473") });
    expect(messageUsage([user("u1", "hi"), first, user("u2", "more"), reattached], 3)).toEqual({ scope: "message", usage: usage(531, 82, "0.000728") });
    // Reopened from History: the earlier messages know nothing of their own.
    const reopened = assistant("a1", { runId: 7 });
    expect(messageUsage([reopened, reattached], 1)).toEqual({ scope: "run", usage: usage(1000, 150, "0.001201") });
    expect(messageUsage([reopened], 0)).toBeUndefined();
  });
});
