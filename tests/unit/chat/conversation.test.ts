// What the chat components send the bridge, read from the conversation's messages.
import { describe, expect, it } from "vitest";
import { resumeQuery, runPosition, sendBody } from "@/lib/chat/conversation";
import type { ChatMessage } from "@/lib/chat/types";

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
