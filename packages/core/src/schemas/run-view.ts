// The console's run view: one run as a member or a tenant admin reads it (what started it, model,
// tokens, exact cost, times, and its timeline), and the list it is reached from. One contract for the
// tRPC procedures' input and output and the page.
import { z } from "zod";
import { RunStatus } from "./runs";

export const runViewInput = z.object({ runId: z.number().int().positive() });

/** A tenant admin may list another member's runs (their user id); a member only their own. */
export const runViewListInput = z.object({
  memberId: z.uuid().optional(),
  limit: z.number().int().min(1).max(100).default(25),
  /** The last run id of the page before (tRPC's infinite-query cursor). */
  cursor: z.number().int().positive().optional(),
});

/** What started the run, as far as the platform and the framework record it. */
export const RunTrigger = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("schedule"), taskId: z.number().int(), scheduleName: z.string().nullable() }),
  z.object({ kind: z.literal("task"), taskId: z.number().int() }),
  z.object({ kind: z.literal("console") }),
  z.object({ kind: z.literal("chat") }),
]);

/**
 * Where a step sits in time (a trace's waterfall): `at`, when it began (ISO; null when the platform's
 * log of it has no times, frames written before they carried `at`), and `durationMs`, how long it
 * lasted (null: an instant, or not known yet).
 */
const Timing = { at: z.string().nullable(), durationMs: z.number().int().nullable() };

export const TimelineEntry = z.discriminatedUnion("type", [
  z.object({ type: z.literal("message"), role: z.enum(["user", "assistant"]), text: z.string(), ...Timing }),
  z.object({
    type: z.literal("tool_call"),
    id: z.string(),
    name: z.string(),
    input: z.unknown(),
    /** Its result came (a tool_result entry, later in the timeline); the call lasted until then. */
    done: z.boolean(),
    ...Timing,
  }),
  z.object({ type: z.literal("tool_result"), id: z.string(), name: z.string(), result: z.unknown(), ...Timing }),
  z.object({
    type: z.literal("request"),
    /** tool (an approval), question, plan, or connection (an app to connect: the run paused for it). */
    kind: z.string(),
    requestId: z.string(),
    toolName: z.string(),
    input: z.unknown(),
    app: z.string().nullable(),
    status: z.enum(["pending", "allowed", "denied"]),
    answer: z.unknown(),
    createdAt: z.string().nullable(),
    resolvedAt: z.string().nullable(),
    ...Timing,
  }),
  /** `resumed`: "running" again after a pause (the run's first "running" is its start, not shown). */
  z.object({ type: z.literal("status"), status: RunStatus, error: z.string().nullable(), resumed: z.boolean().optional(), ...Timing }),
]);

export const RunDetail = z.object({
  id: z.number().int(),
  status: RunStatus,
  owner: z.object({ userId: z.string(), email: z.string(), name: z.string().nullable() }),
  agent: z.object({ id: z.number().int(), name: z.string().nullable() }),
  model: z.string(),
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  /** Exact micro-USD (an integer); the page rounds only to show it. */
  costMicros: z.number().int(),
  error: z.string().nullable(),
  stopReason: z.string().nullable(),
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
  durationMs: z.number().int().nullable(),
  trigger: RunTrigger,
  /** False while the run is going: the timeline then covers only its finished requests. */
  complete: z.boolean(),
  timeline: z.array(TimelineEntry),
});

export const RunRow = z.object({
  id: z.number().int(),
  status: RunStatus,
  agentId: z.number().int(),
  model: z.string(),
  preview: z.string().nullable(),
  costMicros: z.number().int(),
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
});

export const RunRows = z.object({
  /** null: the member has not used the platform yet (so has no runs). */
  owner: z.object({ userId: z.string(), email: z.string(), name: z.string().nullable() }).nullable(),
  runs: z.array(RunRow),
  hasMore: z.boolean(),
});

export type RunDetail = z.infer<typeof RunDetail>;
export type TimelineEntry = z.infer<typeof TimelineEntry>;
export type RunTrigger = z.infer<typeof RunTrigger>;
