// Runs: request and response contracts, and the frames a run streams.
import { z } from "zod";
import { AgentName, Effort, Instructions, PermissionMode, ToolNames } from "./agents";
import { BoundedMetadata, IntId, Metadata, PageQuery, QueryBoolean, Timestamp, UserId } from "./common";

export const RunStatus = z.enum([
  "running",
  "paused",
  "awaiting_approval",
  "completed",
  "failed",
  "cancelled",
  "closed",
  "archived",
]);
export const TERMINAL_STATUSES = ["completed", "failed", "cancelled"] as const;

export const MAX_TURNS_CAP = 2000;

/** A JSON Schema of the final result: type object, no $ref or $defs anywhere. */
export const OutputSchema = z
  .record(z.string(), z.unknown())
  .refine((schema) => schema.type === "object", "must be a JSON Schema with type object")
  .refine((schema) => !/"\$(ref|defs)"\s*:/.test(JSON.stringify(schema)), "must not use $ref or $defs");

export const RunCreate = z.object({
  message: z.string().min(1, "must not be empty").max(200_000),
  teammate_id: IntId.optional(),
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

export const RunEventsQuery = z.object({
  starting_after: z.coerce.number().int().min(0).optional().meta({
    description: "Resume after this event id (same as the Last-Event-ID header)",
  }),
  user_id: UserId.optional(),
});

export const RunListQuery = PageQuery.extend({
  teammate_id: IntId.optional(),
  status: RunStatus.optional(),
  user_id: UserId.optional(),
  include_end_user_runs: QueryBoolean.optional(),
});

/** The frames of a run's stream (`data: <json>` with a `type`). */
export type RunFrame =
  | { type: "content_block_delta"; id: string; delta: { type: "text_delta"; text: string } }
  | { type: "tool_use"; id: string; name: string; input: unknown }
  | { type: "tool_result"; tool_use_id: string; content: string; result: unknown }
  | { type: "done"; completion_state: string; stop_reason: string; message_count: number }
  // Inlay's extensions (docs/platform-api.md): status changes and requests for a person.
  | { type: "run_status"; status: z.infer<typeof RunStatus>; error?: string }
  | { type: "permission_request"; request_id: string; tool_name: string; input: unknown; kind: string };
