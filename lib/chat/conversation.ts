// Reading a conversation's state from its messages: which run it is on, where its log was left, and
// what the next request to the bridge is. Shared by the chat components; pure, so it is tested alone.
import { isTerminalStatus } from "@/lib/schemas/run-constants";
import type { ChatMessage } from "./types";


export interface RunPosition {
  runId: number;
  /** The cursor the latest assistant message started after (reattachment replays from here). */
  cursor?: string;
  /** The last event the latest assistant message holds (a reply continues from here). */
  lastEventId?: string;
  /** The latest request has ended (done seen): a reply is possible, nothing to reattach to. */
  finished: boolean;
}

export function runPosition(messages: readonly ChatMessage[]): RunPosition | undefined {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!;
    const meta = message.metadata;
    if (message.role !== "assistant" || meta?.runId === undefined) continue;
    return {
      runId: meta.runId,
      cursor: meta.cursor,
      lastEventId: meta.lastEventId,
      finished: meta.completionState !== undefined || (meta.status !== undefined && isTerminalStatus(meta.status)),
    };
  }
  return undefined;
}

/** The body of POST /api/chat for the last user message (only that message is sent). */
export function sendBody(
  messages: readonly ChatMessage[],
  options: { agent: string; permissionMode?: "autonomous" | "approval" | "plan" },
): Record<string, unknown> {
  const message = [...messages].reverse().find((each) => each.role === "user");
  const position = runPosition(messages);
  const reply = position && position.finished && position.lastEventId !== undefined;
  return {
    agent: options.agent,
    message: message && { id: message.id, role: "user", parts: message.parts },
    ...(reply ? { runId: position.runId, cursor: position.lastEventId } : {}),
    ...(options.permissionMode ? { permissionMode: options.permissionMode } : {}),
  };
}

/** GET /api/chat's query to reattach to the latest request, or undefined when nothing is live. */
export function resumeQuery(messages: readonly ChatMessage[]): string | undefined {
  const position = runPosition(messages);
  if (!position || position.finished) return undefined;
  const query = new URLSearchParams({ runId: String(position.runId) });
  if (position.cursor !== undefined) query.set("cursor", position.cursor);
  return query.toString();
}
