// The chat's side of /api/chat, as useChat's transport and packages/react/src/inlay-chat.tsx do it: the UI
// message stream's chunks, the message they build, and a whole turn that reattaches (GET /api/chat from
// the message's position) when an instance ends the stream because it drains.
import { readUIMessageStream } from "ai";
import { EventSourceParserStream } from "eventsource-parser/stream";
import { resumeQuery } from "@inlay/core/chat/conversation";
import { drainingRetryFetch } from "@inlay/core/chat/draining-fetch";
import type { ChatChunk, ChatMessage } from "@inlay/core/chat/types";

/** The UI message stream's chunks, as useChat's transport parses them. */
export async function* chunks(response: Response): AsyncGenerator<ChatChunk> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done || value.data === "[DONE]") return;
      yield JSON.parse(value.data) as ChatChunk;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/** Every chunk (Node 20 has no Array.fromAsync). */
export async function all(source: AsyncIterable<ChatChunk>): Promise<ChatChunk[]> {
  const out: ChatChunk[] = [];
  for await (const chunk of source) out.push(chunk);
  return out;
}

/** The assistant message the chunks build, as the chat shows it. */
export async function messageOf(list: readonly ChatChunk[]): Promise<ChatMessage> {
  const stream = new ReadableStream<ChatChunk>({
    start(controller) {
      list.forEach((chunk) => controller.enqueue(chunk));
      controller.close();
    },
  });
  let last: ChatMessage | undefined;
  for await (const message of readUIMessageStream<ChatMessage>({ stream, terminateOnError: true })) last = message;
  return structuredClone(last!);
}

export const textOfMessage = (message: ChatMessage) => message.parts.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");

export interface ChatTurn {
  runId: number;
  /** The assistant message the chat shows at the end (a reattachment replaces the cut one). */
  message: ChatMessage;
  /** When each chunk arrived, across the reattachments (ms since the epoch). */
  arrivals: number[];
  /** Streams an instance ended because it drained, each followed by a reattachment. */
  reattaches: number;
}

/**
 * One turn of a chat at `url` (…/api/chat): sends `message`, reads the stream, and while the stream
 * ends marked interrupted (its instance drains) reattaches from the message's position, as the chat
 * does. Requests a draining instance refuses are sent again (packages/core/src/chat/draining-fetch.ts).
 */
export async function chatTurn(url: string, headers: Record<string, string>, body: { agent: string; text: string; id: string }): Promise<ChatTurn> {
  const send = drainingRetryFetch();
  const user: ChatMessage = { id: body.id, role: "user", parts: [{ type: "text", text: body.text }] };
  let response = await send(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ agent: body.agent, message: user }),
  });
  const arrivals: number[] = [];
  let reattaches = 0;
  for (;;) {
    if (response.status !== 200) throw new Error(`${response.status} from ${url}: ${await response.text()}`);
    const seen: ChatChunk[] = [];
    for await (const chunk of chunks(response)) {
      seen.push(chunk);
      arrivals.push(Date.now());
    }
    const message = await messageOf(seen);
    const failure = message.parts.find((part) => part.type === "data-error");
    if (failure || message.metadata?.runId === undefined) throw new Error(`the turn failed: ${JSON.stringify(failure ?? message)}`);
    if (!message.metadata.interrupted) return { runId: message.metadata.runId, message, arrivals, reattaches };
    const query = resumeQuery([user, message]);
    if (!query) throw new Error(`an interrupted message with no run to reattach to: ${JSON.stringify(message.metadata)}`);
    reattaches++;
    response = await send(`${url}?${query}`, { headers });
  }
}
