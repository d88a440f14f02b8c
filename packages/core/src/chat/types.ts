// The chat's one message type (STYLE 10): an AI SDK UIMessage with Inlay's metadata and data parts.
// The bridge (server/framework/chat) writes it, useChat and components/chat read it; nothing else redefines it.
import type { InferUIMessageChunk, UIMessage } from "ai";
import type { RunStatus } from "../platform-client";

export interface ChatUsage {
  input_tokens: number;
  output_tokens: number;
  cost_usd: string;
}

/** Metadata of an assistant message: which run (and which request on it) the message shows. */
export interface ChatMetadata {
  runId?: number;
  /**
   * The event id before this message's first frame (absent for a run's first request). Following the
   * run's event log from here replays exactly this message, which is how a reload reattaches.
   */
  cursor?: string;
  /** The id of the last frame this message holds: the cursor of the next reply. */
  lastEventId?: string;
  status?: RunStatus;
  /** This stream ended before its request did because the server drains: reattach (GET /api/chat). */
  interrupted?: "draining";
  /** The done frame's completion_state (completed, failed, cancelled). */
  completionState?: string;
  stopReason?: string;
  /** What this message (its request on the run) used: the run's usage less what it had used before. */
  usage?: ChatUsage;
  /**
   * The whole run's usage instead, where this request's own is not known (the last message of a
   * conversation of several requests re-read from its log, or a reply reattached to): shown as the
   * conversation's total, never as the message's.
   */
  runUsage?: ChatUsage;
  createdAt?: number;
}

export interface QuestionOption {
  label: string;
  description?: string;
}

export interface Question {
  question: string;
  header?: string;
  options: QuestionOption[];
  multiSelect?: boolean;
}

/** What a failure means for the person in the chat; `kind` drives the banner. */
export type ChatErrorKind =
  | "cap_reached"
  | "balance_depleted"
  | "rate_limited"
  | "verification_required"
  | "run_failed"
  | "connection"
  | "not_found"
  | "conflict"
  | "unauthorized"
  /** The embed token expired: the iframe asks its host page for a new one and sends again. */
  | "token_expired"
  | "invalid"
  | "unavailable"
  | "unknown";

export interface ChatError {
  kind: ChatErrorKind;
  message: string;
  /** Seconds to wait before trying again (rate limits). */
  retryAfterSeconds?: number;
  /** When a monthly cap or limit resets (ISO 8601), when known. */
  resetsAt?: string | null;
  /** The platform's error_code or the framework's limit name. */
  code?: string;
  requestId?: string | null;
  topupUrl?: string;
}

export type RequestState = "pending" | "allowed" | "denied" | "expired";

// A type alias, not an interface: UIMessage needs a Record<string, unknown>, and an index signature
// would widen every data part to unknown.
export type ChatDataTypes = {
  /** A tool call waiting for the person's approval (permission_request kind "tool"). */
  approval: { requestId: string; toolName: string; toolCallId?: string; input: unknown; state: RequestState };
  /** AskUserQuestion (kind "question"). */
  question: {
    requestId: string;
    toolCallId?: string;
    questions: Question[];
    state: "pending" | "answered" | "expired";
    answers?: Record<string, string>;
  };
  /** Plan mode's approval (kind "plan"): the plan is the text part `textId` holds. */
  plan: {
    requestId: string;
    toolCallId?: string;
    plan: string;
    textId?: string;
    options: string[];
    state: "pending" | "approved" | "revised" | "expired";
    answer?: string;
  };
  /**
   * An app tool the member has no usable connection for (permission_request kind "connection"): the
   * run waits until they connect the app (it then resumes by itself) or decline (the call fails).
   */
  connection: {
    requestId: string;
    toolName: string;
    toolCallId?: string;
    app: string;
    appName: string;
    /** Why: no connection at all, or one whose access expired. */
    reason: "missing" | "expired";
    state: "pending" | "connected" | "declined" | "expired";
  };
  /** The run's structured output (output_schema), null when the model produced none. */
  output: { data: Record<string, unknown> | null };
  error: ChatError;
};

export type ChatMessage = UIMessage<ChatMetadata, ChatDataTypes>;
export type ChatChunk = InferUIMessageChunk<ChatMessage>;
export type ChatPart = ChatMessage["parts"][number];

/** The tool the platform asks questions (and plan approval) with; shown as cards, not tool calls. */
export { ASK_USER_QUESTION, PLAN_APPROVAL } from "../schemas/run-constants";
