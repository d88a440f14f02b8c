// GET /runs/{run_id}/messages (an Inlay extension, docs/platform-api.md): the run's conversation as
// turns, read from the AI SDK model messages the run keeps (platform_runs.messages). The event log
// holds only the agent's frames; this is where what the end-user sent lives.
//
// In those messages a user message is exactly one request on the run: createRun stores the start
// message, replyToRun appends each reply's; answers, approvals and plan send-backs are tool messages,
// and tool calls and results are the agent's plumbing. So the user turns line up, one to one, with
// the run's requests (and with the `done` frames of its event log).
import type { z } from "zod";
import type { RunMessage, RunMessages } from "@inlay/core/schemas/runs";
import { PlatformError } from "../../errors";
import { findRun } from "../../repositories/runs";
import { METADATA_ONLY } from "../../infrastructure/redact";
import { ATTACHMENT_OPTION } from "./run-files";
import type { RunServiceContext } from "./run-context";
import type { Scope } from "../scope";

type Turn = z.infer<typeof RunMessage>;
type TurnFile = NonNullable<Turn["files"]>[number];

interface Part {
  type?: unknown;
  text?: unknown;
  filename?: unknown;
  mediaType?: unknown;
  providerOptions?: Record<string, { attachment?: { filename?: unknown; mediaType?: unknown } } | undefined>;
}

const partsOf = (content: unknown): Part[] =>
  Array.isArray(content) ? content.filter((part): part is Part => typeof part === "object" && part !== null) : [];

const str = (value: unknown, fallback: string) => (typeof value === "string" && value ? value : fallback);

/**
 * A user message's text and files. Files are stored as `inlay-file:<n>` references; a conversation
 * restored from a checkpoint may hold them inline instead (a file part, or a text part the platform
 * marked as an attachment), which count as files too, never as text.
 */
function userTurn(content: unknown): Turn {
  if (typeof content === "string") return { role: "user", text: content };
  const texts: string[] = [];
  const files: TurnFile[] = [];
  for (const part of partsOf(content)) {
    const attachment = part.providerOptions?.[ATTACHMENT_OPTION]?.attachment;
    if (part.type === "text" && attachment) {
      files.push({ name: str(attachment.filename, "attachment"), mime_type: str(attachment.mediaType, "text/plain") });
    } else if (part.type === "text" && typeof part.text === "string") {
      texts.push(part.text);
    } else if (part.type === "file" || part.type === "image") {
      files.push({ name: str(part.filename, "attachment"), mime_type: str(part.mediaType, "application/octet-stream") });
    }
  }
  return { role: "user", text: texts.join("\n"), ...(files.length > 0 ? { files } : {}) };
}

/** An assistant message's text parts (reasoning, tool calls and approval requests are not text). */
function assistantTexts(content: unknown): string[] {
  if (typeof content === "string") return content.trim() ? [content.trim()] : [];
  return partsOf(content).flatMap((part) =>
    part.type === "text" && typeof part.text === "string" && part.text.trim() ? [part.text.trim()] : [],
  );
}

/**
 * The conversation as turns: each user message, then the agent's text until the next one (every
 * assistant message of that request, paragraphs joined by a blank line), left out when it said
 * nothing in words. Tool messages are plumbing.
 */
export function conversationTurns(messages: unknown): Turn[] {
  if (!Array.isArray(messages)) return [];
  const turns: Turn[] = [];
  let answer: string[] = [];
  const closeAnswer = () => {
    if (answer.length > 0) turns.push({ role: "assistant", text: answer.join("\n\n") });
    answer = [];
  };
  for (const message of messages as { role?: unknown; content?: unknown }[]) {
    if (message?.role === "user") {
      closeAnswer();
      turns.push(userTurn(message.content));
    } else if (message?.role === "assistant") {
      answer.push(...assistantTexts(message.content));
    }
  }
  closeAnswer();
  return turns;
}

/** The text of the run's first user message (the one that started it), or "" when it had none. */
export function firstUserText(messages: unknown): string {
  if (!Array.isArray(messages)) return "";
  const first = (messages as { role?: unknown; content?: unknown }[]).find((message) => message?.role === "user");
  return first ? userTurn(first.content).text.trim() : "";
}

/**
 * The run's turns, in the caller's scope (another end-user's or account's run is 404). A metadata_only
 * run stored no content: an empty list that says so. A run that is executing answers its conversation
 * as last stored: every user turn (its current request's included) and the agent's text up to where
 * the run last paused or finished; the current pass's text joins once it pauses or ends (until then
 * it is on GET /runs/{run_id}/events).
 */
export async function listRunMessages(ctx: RunServiceContext, scope: Scope, runId: number): Promise<z.infer<typeof RunMessages>> {
  const row = await findRun(ctx.prisma, scope, runId);
  if (!row) throw new PlatformError({ type: "not_found", message: `run ${runId} not found` });
  if (row.retention === METADATA_ONLY) return { data: [], retention: "metadata_only" };
  return { data: conversationTurns(row.messages), retention: "standard" };
}
