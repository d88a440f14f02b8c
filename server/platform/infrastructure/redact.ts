// Redaction for metadata_only retention: what is stored of a run keeps its shape, tool names and
// counts, and loses every word of content (message text, tool inputs and results, files, output).
import type { ModelMessage } from "ai";
import type { RunFrame } from "@inlay/core/schemas/runs";

export const METADATA_ONLY = "metadata_only";

export function redactFrame(frame: RunFrame): RunFrame {
  switch (frame.type) {
    case "content_block_delta":
      return { ...frame, delta: { type: "text_delta", text: "" } };
    case "tool_use":
      return { ...frame, input: null };
    case "tool_result":
      return { ...frame, content: "", result: null };
    case "permission_request":
      return { ...frame, input: null };
    case "done": {
      // eslint-disable-next-line @typescript-eslint/no-unused-vars -- dropped: it is generated content
      const { output_data, ...rest } = frame;
      return rest;
    }
    default:
      return frame;
  }
}

type Part = { type: string; [key: string]: unknown };

function redactPart(part: Part): Part | null {
  switch (part.type) {
    case "text":
    case "reasoning":
      return { type: part.type, text: "" };
    case "tool-call":
      return { type: "tool-call", toolCallId: part.toolCallId, toolName: part.toolName, input: {} };
    case "tool-result":
      return { type: "tool-result", toolCallId: part.toolCallId, toolName: part.toolName, output: { type: "text", value: "" } };
    case "tool-approval-request":
    case "tool-approval-response":
      return part;
    default:
      // Files and anything unknown: not stored at all.
      return null;
  }
}

/** The conversation's skeleton: roles, tool names and ids, message count; no content. */
export function redactMessages(messages: ModelMessage[]): unknown[] {
  return messages.map((message) => {
    if (typeof message.content === "string") return { role: message.role, content: "" };
    return {
      role: message.role,
      content: (message.content as Part[]).map(redactPart).filter((part): part is Part => part !== null),
    };
  });
}
