// Runs: request and response contracts, and the frames a run streams.
import { z } from "zod";
import { AgentName, Effort, Instructions, PermissionMode, ToolNames } from "./agents";
import { BodyId, BoundedMetadata, IntId, Metadata, PageQuery, QueryBoolean, Timestamp, UserId } from "./common";
import { RetentionMode } from "./settings";

import { RUN_STATUSES } from "./run-constants";

export const RunStatus = z.enum(RUN_STATUSES);
export * from "./run-constants";

export const MAX_TURNS_CAP = 2000;

/** A JSON Schema of the final result: type object, no $ref or $defs anywhere. */
export const OutputSchema = z
  .record(z.string(), z.unknown())
  .refine((schema) => schema.type === "object", "must be a JSON Schema with type object")
  .refine((schema) => !/"\$(ref|defs)"\s*:/.test(JSON.stringify(schema)), "must not use $ref or $defs");

export const RunCreate = z.object({
  message: z.string().min(1, "must not be empty").max(200_000),
  teammate_id: BodyId.optional(),
  name: AgentName.optional(),
  instructions: Instructions.optional(),
  permission_mode: PermissionMode.optional(),
  human_in_the_loop: z.boolean().optional(),
  skill: z.string().min(1).max(100).optional(),
  tools: ToolNames.optional(),
  model: z.string().min(1).max(255).optional(),
  effort: Effort.optional(),
  stream: z.boolean().optional(),
  user_id: UserId.optional(),
  metadata: BoundedMetadata.optional(),
  memory: z.boolean().optional(),
  history: z.boolean().optional(),
  task_setup_tools: z.boolean().optional(),
  feedback: z.boolean().optional(),
  email_notifications: z.boolean().optional(),
  email_inbox: z.boolean().optional(),
  output_schema: OutputSchema.optional(),
  max_turns: z.number().int().min(1).max(MAX_TURNS_CAP, `must be at most ${MAX_TURNS_CAP}`).optional(),
});

export const Run = z
  .object({
    id: z.number().int(),
    teammate_id: z.number().int(),
    task_id: z.number().int().nullable(),
    status: RunStatus,
    output: z.unknown().nullable(),
    output_data: z.record(z.string(), z.unknown()).nullable(),
    user_id: z.string().nullable(),
    metadata: Metadata.nullable(),
    permission_mode: PermissionMode,
    human_in_the_loop: z.boolean(),
    interactive: z.boolean().meta({
      description:
        "False while a non-interactive reply runs (no questions, approvals or plan mode; a tool that would need approval is refused); a reply with interactive=true keeps it true",
    }),
    model: z.string(),
    effort: Effort,
    max_turns: z.number().int(),
    turns_used: z.number().int(),
    error: z.string().nullable(),
    stop_reason: z.string().nullable(),
    usage: z.object({ input_tokens: z.number().int(), output_tokens: z.number().int(), cost_usd: z.string() }),
    created_at: Timestamp,
    updated_at: Timestamp,
    finished_at: Timestamp.nullable(),
  })
  .meta({ id: "Run" });

export const RunIdParam = z.object({ run_id: IntId });

/** POST /runs/{run_id}/reply (and the `payload` of /reply/with-files). */
export const RunReply = z.object({
  message: RunCreate.shape.message,
  stream: z.boolean().optional(),
  task_setup_tools: z.boolean().optional().meta({ description: "Omitted: the run's previous setting" }),
  user_id: UserId.optional(),
  interactive: z.boolean().optional().meta({
    description:
      "Inlay extension. true: a person is at the conversation (a chat), so this request honours the run's permission mode like a new run (approvals, questions, plan mode). Omitted or false: non-interactive; a tool that would need approval is refused, never run",
  }),
});

/** POST /runs/first-session. */
export const FirstSessionCreate = z.object({
  teammate_id: BodyId,
  permission_mode: PermissionMode.optional(),
  human_in_the_loop: z.boolean().optional(),
  stream: z.boolean().optional(),
  user_id: UserId.optional(),
});

/** PATCH /runs/{run_id}/permission-mode. */
export const PermissionModeChange = z.object({ permission_mode: PermissionMode });

export const RunEventsQuery = z.object({
  starting_after: z.coerce.number().int().min(0).optional().meta({
    description: "Resume after this event id (same as the Last-Event-ID header)",
  }),
  user_id: UserId.optional(),
});

/** The header an EventSource sends when it reconnects; the route checks it (422 when not an event id). */
export const RunEventsHeaders = z.object({
  "Last-Event-ID": z
    .string()
    .optional()
    .meta({ description: "Resume after this event id (an EventSource sends it when it reconnects); wins over starting_after" }),
});

/** GET /runs/{run_id}/messages (an Inlay extension): the run's conversation as turns. */
export const RunMessage = z
  .object({
    role: z.enum(["user", "assistant"]),
    text: z.string().meta({
      description: "user: what the end-user sent (the start message, then each reply); assistant: the agent's text for that request",
    }),
    files: z
      .array(z.object({ name: z.string(), mime_type: z.string() }))
      .optional()
      .meta({ description: "The attachments of a user turn (POST /runs/with-files, /reply/with-files); absent when none" }),
  })
  .meta({ id: "RunMessage" });

export const RunMessages = z
  .object({
    data: z.array(RunMessage).meta({
      description:
        "In order: one user turn per request on the run (its start and each reply), each followed by the agent's text for it when there is any",
    }),
    retention: RetentionMode.meta({ description: "metadata_only: the run kept no content, so data is empty" }),
  })
  .meta({ id: "RunMessages" });

export const RunListQuery = PageQuery.extend({
  teammate_id: IntId.optional(),
  status: RunStatus.optional(),
  user_id: UserId.optional(),
  include_end_user_runs: QueryBoolean.optional(),
});

/**
 * Inlay's extension on every frame but a text delta (docs/platform-api.md): `at`, when the platform
 * produced it (ISO 8601, ms), so a reader can place each step in time (the console's run timeline).
 * Optional: frames logged before it have none, and a client may ignore it.
 */
type Timed = { at?: string };

/** The frames of a run's stream (`data: <json>` with a `type`). */
export type RunFrame =
  | { type: "content_block_delta"; id: string; delta: { type: "text_delta"; text: string } }
  | ({ type: "tool_use"; id: string; name: string; input: unknown } & Timed)
  | ({ type: "tool_result"; tool_use_id: string; content: string; result: unknown } & Timed)
  | ({
      type: "done";
      completion_state: string;
      stop_reason: string;
      message_count: number;
      /** With an output_schema: the structured result (null when the model produced none). */
      output_data?: Record<string, unknown> | null;
    } & Timed)
  // Inlay's extensions (docs/platform-api.md): status changes and requests for a person.
  | ({
      type: "run_status";
      status: z.infer<typeof RunStatus>;
      error?: string;
      // Set when a process re-claimed a run whose executor died: frames with ids above
      // `discard_after` (and below this frame's) were an interrupted step, removed from the log and
      // redone after this frame. A client that already received some drops them.
      resumed?: true;
      attempt?: number;
      discard_after?: string;
    } & Timed)
  | ({
      type: "permission_request";
      request_id: string;
      tool_name: string;
      input: unknown;
      /** tool | question | plan | connection */
      kind: string;
      // kind connection: the app to connect before the call can go on, and why.
      app?: string;
      app_name?: string;
      connection_status?: "missing" | "expired";
    } & Timed);

/** `frame` with its `at` (now unless given); a text delta as it is (its time is the step's around it). */
export function timedFrame<T extends RunFrame>(frame: T, at: Date = new Date()): T {
  return frame.type === "content_block_delta" || "at" in frame ? frame : { ...frame, at: at.toISOString() };
}

// ---------------------------------------------------------------------------------------------
// Run lists: GET /runs, /runs/activity, /runs/check, /runs/needs-you (docs/run-lists.md)

export const PREVIEW_MAX_CHARS = 200;

export const RunListSort = z.enum(["created", "priority"]);

/** GET /runs: RunListQuery plus the rest of the spec's parameters. */
export const RunListFullQuery = RunListQuery.extend({
  task_id: IntId.optional().meta({ description: "Runs of this task only" }),
  archived: z
    .enum(["exclude", "only", "include"])
    .optional()
    .meta({ description: "exclude (default), only or include archived runs; default include when status=archived" }),
  exclude_platform_runs: QueryBoolean.optional().meta({ description: "Drop runs started by the platform's own UI" }),
  sort: RunListSort.optional().meta({
    description: "created: newest first (default). priority: awaiting_approval, paused, running, then the rest; newest first within each",
  }),
  fields: z.enum(["summary"]).optional(),
});

const previews = {
  closing_preview: z.string().nullable().meta({ description: "The start of the final output once the run is terminal, else null" }),
};

export const RunListItem = Run.extend({
  ...previews,
  latest_message_preview: z
    .string()
    .nullable()
    .meta({ description: `The last message's text, at most ${PREVIEW_MAX_CHARS} characters` }),
  first_message_preview: z.string().nullable().meta({
    description: `An Inlay extension: the text of the message that started the run, at most ${PREVIEW_MAX_CHARS} characters; null when it had none or the run kept no content`,
  }),
}).meta({ id: "RunListItem" });

/** The `fields=summary` projection: no message previews, and none of the open-ended payloads. */
export const RunSummary = Run.omit({ output: true, output_data: true, metadata: true })
  .extend(previews)
  .meta({ id: "RunSummary" });

export const RunActivity = z
  .object({
    running: z.number().int(),
    awaiting_approval: z.number().int(),
    paused: z.number().int(),
    needs_you: z.number().int().meta({ description: "awaiting_approval + paused" }),
    completed_today: z.number().int().meta({ description: "Finished as completed since 00:00 UTC" }),
    failed_today: z.number().int(),
    cancelled_today: z.number().int(),
    started_today: z.number().int(),
    last_run_at: Timestamp.nullable().meta({ description: "created_at of the newest run" }),
  })
  .meta({ id: "RunActivity" });

export const RunCheck = z
  .object({
    latest_run_id: z.number().int().nullable(),
    latest_updated_at: Timestamp.nullable().meta({ description: "The newest updated_at of any run in the scope" }),
    needs_you: z.number().int(),
    running: z.number().int(),
  })
  .meta({ id: "RunCheck" });

export const PendingRequestBrief = z.object({
  request_id: z.string(),
  tool_name: z.string(),
  kind: z.string(),
  created_at: Timestamp,
});

export const NeedsYouItem = Run.extend({ pending_requests: z.array(PendingRequestBrief) }).meta({ id: "NeedsYouRun" });

// ---------------------------------------------------------------------------------------------
// People in the loop: POST /runs/{id}/answer, /approve and GET /runs/{id}/permissions

export const AnswerRequest = z.object({
  answers: z.record(z.string(), z.string()).refine((value) => Object.keys(value).length > 0, "must not be empty"),
  request_id: z.string().min(1).max(100).optional(),
});

export const AnswerResult = z
  .object({ request_id: z.string(), status: z.literal("allowed"), answers: z.record(z.string(), z.string()) })
  .meta({ id: "AnswerResult" });

export const ApproveRequest = z.object({
  request_id: z.string().min(1).max(100),
  decision: z.string().min(1).max(20).meta({ description: "allow (approve) or deny (reject)" }),
  remember: z.boolean().optional(),
});

export const ApprovalResult = z
  .object({ request_id: z.string(), status: z.enum(["allowed", "denied", "pending"]), tool_name: z.string(), remember: z.boolean() })
  .meta({ id: "ApprovalResult" });

export const PermissionRequest = z
  .object({
    request_id: z.string(),
    kind: z.string().meta({ description: "tool, question, plan, or connection (an app to connect before the call goes on)" }),
    app: z.string().nullable().meta({ description: "kind connection: the app slug (GET /apps)" }),
    tool_name: z.string(),
    input: z.unknown(),
    status: z.enum(["pending", "allowed", "denied"]),
    answer: z.unknown(),
    remember: z.boolean(),
    created_at: z.string(),
    resolved_at: z.string().nullable(),
  })
  .meta({ id: "PermissionRequest" });
