// A past conversation's messages: the person's turns placed before the agent's message of each request.
import { describe, expect, it } from "vitest";
import { resumeQuery, sendBody } from "@inlay/core/chat/conversation";
import { conversationPreview, interleaveTurns, unfinishedRequestMessage, userTurnMessage } from "@inlay/core/chat/history";
import type { ChatMessage } from "@inlay/core/chat/types";

const agent = (id: string, metadata: ChatMessage["metadata"], text: string): ChatMessage => ({ id, role: "assistant", parts: [{ type: "text", text }], metadata });

describe("interleaveTurns", () => {
  const answers = [
    agent("run-7-0", { runId: 7, lastEventId: "5", completionState: "completed" }, "Echo: one"),
    agent("run-7-5", { runId: 7, cursor: "5", lastEventId: "9", completionState: "completed" }, "Echo: two"),
  ];

  it("puts user turn n before the agent's message n, and the agent's own turns are not repeated", () => {
    const messages = interleaveTurns(
      7,
      [
        { role: "user", text: "one" },
        { role: "assistant", text: "Echo: one" },
        { role: "user", text: "two" },
        { role: "assistant", text: "Echo: two" },
      ],
      answers,
    );
    expect(messages.map((message) => [message.id, message.role])).toEqual([
      ["run-7-user-0", "user"],
      ["run-7-0", "assistant"],
      ["run-7-user-1", "user"],
      ["run-7-5", "assistant"],
    ]);
    expect(messages[2]!.parts).toEqual([{ type: "text", text: "two" }]);
    // The next message replies on the run from the last request's end.
    expect(sendBody([...messages, { id: "u3", role: "user", parts: [{ type: "text", text: "three" }] }], { agent: "A" })).toMatchObject({ runId: 7, cursor: "9" });
  });

  it("shows the agent's messages alone when there are no turns (metadata_only), and drops turns beyond them", () => {
    expect(interleaveTurns(7, [], answers)).toEqual(answers);
    const extra = interleaveTurns(7, [{ role: "user", text: "one" }, { role: "user", text: "two" }, { role: "user", text: "three" }], answers);
    expect(extra.map((message) => message.id)).toEqual(["run-7-user-0", "run-7-0", "run-7-user-1", "run-7-5"]);
  });

  it("ends a conversation still going with a message to reattach to from its cursor", () => {
    const pending = unfinishedRequestMessage(7, "9", "running");
    const messages = interleaveTurns(7, [{ role: "user", text: "one" }, { role: "user", text: "two" }, { role: "user", text: "three" }], [...answers, pending]);
    expect(messages.at(-2)!.id).toBe("run-7-user-2");
    expect(messages.at(-1)).toEqual({ id: "run-7-9", role: "assistant", parts: [], metadata: { runId: 7, cursor: "9", status: "running" } });
    expect(resumeQuery(messages)).toBe("runId=7&cursor=9");
    expect(resumeQuery([unfinishedRequestMessage(7, undefined, "awaiting_approval")])).toBe("runId=7");
  });
});

describe("userTurnMessage", () => {
  it("names files without a URL, and leaves out the placeholder of a files-only message", () => {
    expect(userTurnMessage(3, 1, { role: "user", text: "(see the attached files)", files: [{ name: "a.png", mime_type: "image/png" }] })).toEqual({
      id: "run-3-user-1",
      role: "user",
      parts: [{ type: "file", mediaType: "image/png", filename: "a.png", url: "" }],
    });
    // Typed by the person without files, it is their text.
    expect(userTurnMessage(3, 0, { role: "user", text: "(see the attached files)" }).parts).toEqual([{ type: "text", text: "(see the attached files)" }]);
  });
});

describe("conversationPreview", () => {
  it("is the person's first message whenever there is one, whatever the agent said last", () => {
    expect(conversationPreview({ first_message_preview: "plan my week", closing_preview: "Here is your week." })).toEqual({ text: "plan my week", from: "person" });
    expect(conversationPreview({ first_message_preview: "  still running  ", closing_preview: null })).toEqual({ text: "still running", from: "person" });
  });

  it("falls back to the agent's answer only when the person's message has no text", () => {
    expect(conversationPreview({ first_message_preview: null, closing_preview: "Daily report: all green." })).toEqual({ text: "Daily report: all green.", from: "agent" });
    expect(conversationPreview({ first_message_preview: "   ", closing_preview: "Done." })).toEqual({ text: "Done.", from: "agent" });
    expect(conversationPreview({ first_message_preview: null, closing_preview: null })).toBeNull();
  });
});
