// conversationTurns: AI SDK model messages (as a run stores them) → GET /runs/{run_id}/messages turns.
import { describe, expect, it } from "vitest";
import { conversationTurns } from "@/server/platform/services/runs/run-messages";
import { firstMessagePreview } from "@/server/platform/services/runs/run-lists";

describe("conversationTurns", () => {
  it("makes each user message a turn and joins the agent's text until the next one, skipping tool plumbing", () => {
    const turns = conversationTurns([
      { role: "user", content: "add 6 and 7" },
      {
        role: "assistant",
        content: [
          { type: "reasoning", text: "private thoughts" },
          { type: "text", text: "Let me compute. " },
          { type: "tool-call", toolCallId: "c1", toolName: "calculator", input: { expression: "6+7" } },
        ],
      },
      { role: "tool", content: [{ type: "tool-result", toolCallId: "c1", toolName: "calculator", output: { type: "json", value: { result: 13 } } }] },
      { role: "assistant", content: [{ type: "text", text: "It is 13." }] },
      { role: "user", content: [{ type: "text", text: "thanks" }] },
      { role: "assistant", content: "You're welcome." },
    ]);
    expect(turns).toEqual([
      { role: "user", text: "add 6 and 7" },
      { role: "assistant", text: "Let me compute.\n\nIt is 13." },
      { role: "user", text: "thanks" },
      { role: "assistant", text: "You're welcome." },
    ]);
  });

  it("leaves out an agent turn with no words (a question, a run cut short) but keeps every user turn", () => {
    const turns = conversationTurns([
      { role: "user", content: "::ask Which? | A | B" },
      { role: "assistant", content: [{ type: "tool-call", toolCallId: "q", toolName: "AskUserQuestion", input: {} }] },
      { role: "tool", content: [{ type: "tool-result", toolCallId: "q", toolName: "AskUserQuestion", output: { type: "text", value: "" } }] },
      { role: "user", content: "again" },
    ]);
    expect(turns).toEqual([
      { role: "user", text: "::ask Which? | A | B" },
      { role: "user", text: "again" },
    ]);
  });

  it("names files, whether stored as references or inline (a checkpoint), and never shows their contents", () => {
    const turns = conversationTurns([
      {
        role: "user",
        content: [
          { type: "text", text: "read these" },
          { type: "file", data: "inlay-file:0", mediaType: "text/plain", filename: "notes.txt" },
          { type: "file", data: "inlay-file:1", mediaType: "image/png" },
        ],
      },
      {
        role: "user",
        content: [
          { type: "text", text: "and this" },
          {
            type: "text",
            text: "--- attachment: secret.md (text/markdown) ---\nthe password is swordfish",
            providerOptions: { inlay: { attachment: { filename: "secret.md", mediaType: "text/markdown" } } },
          },
          { type: "file", data: { 0: 137 }, mediaType: "application/pdf", filename: "doc.pdf" },
        ],
      },
    ]);
    expect(turns).toEqual([
      {
        role: "user",
        text: "read these",
        files: [
          { name: "notes.txt", mime_type: "text/plain" },
          { name: "attachment", mime_type: "image/png" },
        ],
      },
      {
        role: "user",
        text: "and this",
        files: [
          { name: "secret.md", mime_type: "text/markdown" },
          { name: "doc.pdf", mime_type: "application/pdf" },
        ],
      },
    ]);
    expect(JSON.stringify(turns)).not.toContain("swordfish");
  });

  it("answers no turns for something that is not a conversation", () => {
    expect(conversationTurns(null)).toEqual([]);
    expect(conversationTurns({ role: "user" })).toEqual([]);
    expect(conversationTurns([null, 3, { role: "system", content: "be nice" }])).toEqual([]);
  });
});

describe("firstMessagePreview", () => {
  it("is the text of the run's first user message, not a later reply nor the agent's answer", () => {
    const preview = firstMessagePreview([
      { role: "user", content: [{ type: "text", text: " read these " }, { type: "file", data: "inlay-file:0", mediaType: "text/plain", filename: "notes.txt" }] },
      { role: "assistant", content: "Done." },
      { role: "user", content: "and now this" },
    ]);
    expect(preview).toBe("read these");
  });

  it("is null when the first message has no text or nothing was kept, and is cut to 200 characters", () => {
    expect(firstMessagePreview([{ role: "user", content: [{ type: "file", data: "inlay-file:0", mediaType: "image/png" }] }])).toBeNull();
    expect(firstMessagePreview(null)).toBeNull();
    expect(firstMessagePreview([{ role: "assistant", content: "hello" }])).toBeNull();
    const long = firstMessagePreview([{ role: "user", content: "word ".repeat(100) }])!;
    expect(long).toHaveLength(200);
    expect(long.endsWith("…")).toBe(true);
  });
});
