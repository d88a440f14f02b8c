// Reading a conversation's state from its messages: which run it is on, where its log was left, and
// what the next request to the bridge is. Shared by the chat components; pure, so it is tested alone.
import { isTerminalStatus } from "../schemas/run-constants";
import { microsToUsd, usdToMicros } from "../money";
import { requestUsage } from "./run-frames";
import type { ChatMessage, ChatUsage } from "./types";


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

/**
 * What the footer of `messages[index]` shows: its own usage (`scope` "message"), or the whole run's
 * ("run") when the message holds only that. The run's total less the messages before it on the same
 * run is this message's own when each of them knows its own (a reply reattached to after a reload);
 * otherwise the total is shown as the conversation's. Undefined: nothing to show.
 */
export function messageUsage(
  messages: readonly ChatMessage[],
  index: number,
): { scope: "message" | "run"; usage: ChatUsage } | undefined {
  const meta = messages[index]?.metadata;
  if (meta?.usage) return { scope: "message", usage: meta.usage };
  if (!meta?.runUsage || meta.runId === undefined) return meta?.runUsage ? { scope: "run", usage: meta.runUsage } : undefined;
  const earlier = messages.slice(0, index).filter((message) => message.role === "assistant" && message.metadata?.runId === meta.runId);
  const known = earlier.flatMap((message) => (message.metadata?.usage ? [message.metadata.usage] : []));
  if (known.length === 0 || known.length < earlier.length) return { scope: "run", usage: meta.runUsage };
  const before = known.reduce<ChatUsage>(
    (sum, own) => ({
      input_tokens: sum.input_tokens + own.input_tokens,
      output_tokens: sum.output_tokens + own.output_tokens,
      cost_usd: microsToUsd((usdToMicros(sum.cost_usd) ?? 0n) + (usdToMicros(own.cost_usd) ?? 0n)),
    }),
    { input_tokens: 0, output_tokens: 0, cost_usd: "0" },
  );
  return { scope: "message", usage: requestUsage(meta.runUsage, before) };
}
