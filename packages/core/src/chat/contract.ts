// What the browser sends the chat bridge (app/api/chat): one zod contract for the route's validation
// and the components' requests.
import { z } from "zod";
import { PermissionMode } from "../schemas/agents";

export { MAX_ATTACHMENTS } from "./limits";

const RunId = z.number().int().positive();
/** A platform event id: the cursor a reply or a reattachment follows the log from. */
const EventId = z.string().regex(/^\d{1,20}$/, "must be an event id");

const TextPart = z.object({ type: z.literal("text"), text: z.string().max(200_000) });
const FilePart = z.object({
  type: z.literal("file"),
  mediaType: z.string().min(1).max(255),
  filename: z.string().max(255).optional(),
  // A data: URL (what the chat input reads files into); the bridge never fetches anything else.
  url: z.string().startsWith("data:").max(8_000_000),
});

/** What the bridge sends the platform for a message of files only (the platform wants a message). */
export const FILES_ONLY_MESSAGE = "(see the attached files)";

/** POST /api/chat: the new user message, and the run it continues (a reply) when there is one. */
export const ChatSendBody = z.object({
  agent: z.string().trim().min(1).max(255),
  message: z.object({
    id: z.string().min(1).max(200),
    role: z.literal("user"),
    parts: z
      .array(z.union([
        TextPart,
        FilePart,
        // Other parts a UI message may carry (step markers …) are ignored, never a malformed file.
        z.looseObject({ type: z.string().refine((type) => type !== "text" && type !== "file") }),
      ]))
      .min(1)
      .max(50),
  }),
  runId: RunId.optional(),
  cursor: EventId.optional(),
  permissionMode: PermissionMode.optional(),
});
export type ChatSendBody = z.infer<typeof ChatSendBody>;

/** GET /api/chat?runId=&cursor=: reattach to a run's current request (after a reload or a cut). */
export const ChatResumeQuery = z.object({
  runId: z.coerce.number().int().positive(),
  cursor: EventId.optional(),
});

/** POST /api/chat/actions: what a person does while a run waits or streams. */
export const ChatAction = z.discriminatedUnion("action", [
  z.object({
    action: z.literal("approve"),
    runId: RunId,
    requestId: z.string().min(1).max(100),
    decision: z.enum(["allow", "deny"]),
    /** Allow this tool for the rest of the run. */
    remember: z.boolean().optional(),
    /** Always allow: remember, and put the tool on the person's allow-list for every run. */
    always: z.boolean().optional(),
    toolName: z.string().min(1).max(255).optional(),
  }),
  z.object({
    action: z.literal("answer"),
    runId: RunId,
    requestId: z.string().min(1).max(100).optional(),
    answers: z.record(z.string(), z.string().max(10_000)).refine((value) => Object.keys(value).length > 0, "must not be empty"),
  }),
  z.object({ action: z.literal("cancel"), runId: RunId }),
  /**
   * Start connecting an app a run waits for: answers {authorizationUrl} for the popup (or, mode
   * redirect, the page). The run resumes by itself once the connection completes.
   */
  z.object({
    action: z.literal("connect"),
    app: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,62}$/),
    returnTo: z.string().max(2_000).optional(),
    mode: z.enum(["popup", "redirect"]).default("popup"),
  }),
  /** The popup's app granted access: complete the connection with this chat's own credentials. */
  z.object({
    action: z.literal("complete"),
    app: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,62}$/),
    connectionId: z.string().min(1).max(200),
  }),
  /** End the caller's connection of an app (one of them, or every one when connectionId is left out). */
  z.object({
    action: z.literal("disconnect"),
    app: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,62}$/),
    connectionId: z.string().min(1).max(200).optional(),
  }),
]);
export type ChatAction = z.infer<typeof ChatAction>;

/** The id of the assistant message that shows one request on a run: stable, so a replay replaces it. */
export const chatMessageId = (runId: number, cursor: string | undefined) => `run-${runId}-${cursor ?? "0"}`;

/** GET /api/chat/history?agent=: the member's past conversations (runs) with the chat's agent. */
export const ChatHistoryQuery = z.object({ agent: z.string().trim().min(1).max(255) });

/**
 * GET /api/chat/conversation?agent=&runId=: one past conversation, the person's turns (the run's
 * messages) interleaved with the agent's messages (rebuilt from its event log).
 */
export const ChatConversationQuery = z.object({
  agent: z.string().trim().min(1).max(255),
  runId: z.coerce.number().int().positive(),
});

/** One past conversation in the history list. */
export interface ChatHistoryItem {
  runId: number;
  status: string;
  createdAt: string;
  /**
   * Always the same thing (packages/core/src/chat/history.ts conversationPreview): the person's first message of the
   * conversation, or only when it has none (a scheduled run's, a run that kept no content) the agent's
   * final answer; at most 200 characters. `previewFrom` says whose it is.
   */
  preview: string | null;
  previewFrom: "person" | "agent" | null;
}

/** How many past conversations the history lists. */
export const CHAT_HISTORY_LIMIT = 20;

/** GET /api/chat/commands?agent=: what the composer's `/` picker offers for the chat's agent. */
export const ChatCommandsQuery = z.object({ agent: z.string().trim().min(1).max(255) });

/** A `/` command: a platform command or a custom skill; sending `/slug …` forces it on the run. */
export interface ChatCommand {
  slug: string;
  name: string;
  description: string;
  kind: "command" | "skill";
}
