// A past conversation, put back together for the chat: the person's turns (the platform's
// GET /runs/{run_id}/messages) each placed before the agent's message of the same request (rebuilt
// from the run's event log). Pure, so it is tested alone; server/framework/chat/bridge.ts does the reading.
import type { RunListItem, RunMessage, RunStatus } from "../platform-client";
import { chatMessageId, FILES_ONLY_MESSAGE } from "./contract";
import type { ChatMessage, ChatPart } from "./types";

/**
 * What a past conversation is listed by, the same for every run: the person's first message (what the
 * conversation is about), else the agent's final answer; null when the run has neither (yet).
 */
export function conversationPreview(
  run: Pick<RunListItem, "first_message_preview" | "closing_preview">,
): { text: string; from: "person" | "agent" } | null {
  const person = run.first_message_preview?.trim();
  if (person) return { text: person, from: "person" };
  const agent = run.closing_preview?.trim();
  return agent ? { text: agent, from: "agent" } : null;
}

/** The id of the person's message that started request `index` (0 = the run's start) of a run. */
export const userTurnId = (runId: number, index: number) => `run-${runId}-user-${index}`;

/**
 * One user turn as the chat shows it. Files come back by name and type only (the platform never
 * returns their bytes), so their parts have no URL: the chat shows them as named attachments.
 */
export function userTurnMessage(runId: number, index: number, turn: RunMessage): ChatMessage {
  const files = turn.files ?? [];
  // The bridge sends this placeholder for a message that was only files; the person wrote nothing.
  const text = files.length > 0 && turn.text === FILES_ONLY_MESSAGE ? "" : turn.text;
  const parts: ChatPart[] = [
    ...(text ? [{ type: "text" as const, text }] : []),
    ...files.map((file) => ({ type: "file" as const, mediaType: file.mime_type, filename: file.name, url: "" })),
  ];
  return { id: userTurnId(runId, index), role: "user", parts };
}

/**
 * The message of a request that has not ended yet: no parts, and the run position (run, cursor, not
 * finished) that makes the chat reattach to it through GET /api/chat, which replays the request from
 * its cursor under this same id, as after a reload.
 */
export function unfinishedRequestMessage(runId: number, cursor: string | undefined, status: RunStatus): ChatMessage {
  return {
    id: chatMessageId(runId, cursor),
    role: "assistant",
    parts: [],
    metadata: { runId, ...(cursor !== undefined ? { cursor } : {}), status },
  };
}

/**
 * The conversation in order: user turn n, then the agent's message n (requests and user turns line up
 * one to one: each request starts with the person's message). Agent messages without a user turn
 * (a metadata_only run keeps none) stand alone, as before; user turns beyond the agent's messages
 * are left out (a reply that began after the log was read belongs to a later reading).
 */
export function interleaveTurns(runId: number, turns: readonly RunMessage[], agent: readonly ChatMessage[]): ChatMessage[] {
  const users = turns.filter((turn) => turn.role === "user");
  return agent.flatMap((message, index) => {
    const turn = users[index];
    return turn ? [userTurnMessage(runId, index, turn), message] : [message];
  });
}
