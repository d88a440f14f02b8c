// Value tracking (/value): use cases, the observations (sourced outcomes) recorded against them, the
// runs linked to them, and the report that compares confirmed value with those runs' metered cost.
// The spec leaves the allowed values of kind, evidence_level, decision and status open: they are
// chosen here, and documented in docs/platform-api.md ("Value tracking").
import { z } from "zod";
import { UtcDate } from "./billing";
import { IntId, METADATA_MAX_BYTES, PageQuery, Timestamp, UserId } from "./common";

export const USE_CASE_STATUSES = ["active", "paused", "archived"] as const;
export const OBSERVATION_KINDS = ["cost_saving", "revenue", "time_saved", "risk_reduction", "quality", "other"] as const;
/** Weakest to strongest: a person's say-so, a figure measured from records, a figure checked by someone accountable. */
export const EVIDENCE_LEVELS = ["self_reported", "measured", "verified"] as const;
export const EVIDENCE_SOURCES = ["run", "document", "tool_result", "external"] as const;
export const OBSERVATION_STATUSES = ["pending", "confirmed", "rejected"] as const;
export const DECISIONS = ["confirmed", "rejected"] as const;

export const VALUE_NAME_MAX_CHARS = 255;
export const VALUE_GOAL_MAX_CHARS = 5_000;
export const VALUE_TITLE_MAX_CHARS = 255;
export const VALUE_TEXT_MAX_CHARS = 1_000;
export const VALUE_RECORD_ID_MAX_CHARS = 255;
export const VALUE_METRIC_NAME_MAX_CHARS = 255;
export const VALUE_METRIC_UNIT_MAX_CHARS = 64;
/** An observation's amount, either sign: a billion dollars is past any outcome one agent produces. */
export const VALUE_AMOUNT_MAX_USD = 1_000_000_000;
export const VALUE_METRIC_MAX_ABS = 1e15;
export const VALUE_EVIDENCE_MAX_ITEMS = 20;
export const VALUE_RUN_IDS_MAX_ITEMS = 100;

const oneOf = (values: readonly string[]) => `must be one of ${values.join(", ")}`;

const Text = (max: number) =>
  z
    .string({ error: "must be a string" })
    .trim()
    .min(1, "must not be blank")
    .max(max, `must be at most ${max} characters`);

/** Ids are PostgreSQL integers: a larger number names nothing and must not reach a query. */
const MAX_ID = 2_147_483_647;

const PositiveId = (what: string) =>
  z
    .number({ error: `must be an integer ${what} id` })
    .int(`must be an integer ${what} id`)
    .positive(`must be a positive ${what} id`)
    .max(MAX_ID, `must be at most ${MAX_ID}`);

const PathId = IntId.max(MAX_ID, `must be at most ${MAX_ID}`);

const MeasurementModel = z
  .record(z.string(), z.unknown(), { error: "must be an object" })
  .refine(
    (value) => new TextEncoder().encode(JSON.stringify(value)).length <= METADATA_MAX_BYTES,
    `must not exceed ${METADATA_MAX_BYTES} bytes serialized`,
  )
  .meta({ description: `How the use case's value is measured (free-form), at most ${METADATA_MAX_BYTES} bytes serialized` });

// ---------------------------------------------------------------------------------------------
// Use cases

export const UseCase = z
  .object({
    id: z.number().int(),
    name: z.string(),
    goal: z.string(),
    measurement_model: z.record(z.string(), z.unknown()).nullable(),
    responsible_user_id: z.number().int().nullable().meta({ description: "An end-user profile id (GET /users `id`)" }),
    source_run_id: z.number().int().nullable(),
    status: z.enum(USE_CASE_STATUSES),
    linked_run_count: z.number().int().meta({ description: "Runs linked with POST /value/use-cases/{id}/runs" }),
    user_id: z.string().nullable().meta({ description: "The end-user it belongs to; null at the account level" }),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: "ValueUseCase" });
export type UseCase = z.infer<typeof UseCase>;

export const CreateUseCaseRequest = z.object({
  name: Text(VALUE_NAME_MAX_CHARS),
  goal: Text(VALUE_GOAL_MAX_CHARS),
  measurement_model: MeasurementModel.optional(),
  responsible_user_id: PositiveId("end-user profile").optional().meta({
    description: "An end-user profile of the scope (any of the account's at the account level; in an end-user's scope, that end-user's own)",
  }),
  source_run_id: PositiveId("run").optional().meta({ description: "A run of the same scope" }),
  user_id: UserId.optional().meta({ description: "End-user scope (or in the query string)" }),
});
export type CreateUseCaseRequest = z.infer<typeof CreateUseCaseRequest>;

export const UpdateUseCaseRequest = z.object({
  name: Text(VALUE_NAME_MAX_CHARS).optional(),
  goal: Text(VALUE_GOAL_MAX_CHARS).optional(),
  measurement_model: MeasurementModel.nullable().optional().meta({ description: "null clears it" }),
  responsible_user_id: PositiveId("end-user profile").nullable().optional().meta({ description: "null clears it" }),
  status: z.enum(USE_CASE_STATUSES, { error: oneOf(USE_CASE_STATUSES) }).optional(),
  user_id: UserId.optional().meta({ description: "End-user scope: in the query string, or here (both at once must agree)" }),
});
export type UpdateUseCaseRequest = z.infer<typeof UpdateUseCaseRequest>;

export const ListUseCasesQuery = PageQuery.extend({
  starting_after: PathId.optional().meta({ description: "The id of the last item received" }),
  status: z.enum(USE_CASE_STATUSES, { error: oneOf(USE_CASE_STATUSES) }).optional(),
  user_id: UserId.optional(),
});

export const UseCaseIdParam = z.object({ use_case_id: PathId });
export const ObservationIdParam = z.object({ observation_id: PathId });

// ---------------------------------------------------------------------------------------------
// Observations

export const EvidenceEntry = z
  .object({
    source: z.enum(EVIDENCE_SOURCES, { error: oneOf(EVIDENCE_SOURCES) }).meta({
      description: "run: record_id is a run id; document: an agent document id; tool_result: a tool_use_id, with run_id; external: your own reference",
    }),
    record_id: z
      .union([z.number().int().positive().max(MAX_ID), Text(VALUE_RECORD_ID_MAX_CHARS)], {
        error: "must be a positive integer or a non-blank string",
      })
      .meta({ description: `The record's id (integer for run and document), at most ${VALUE_RECORD_ID_MAX_CHARS} characters` }),
    run_id: PositiveId("run").optional().meta({ description: "tool_result only: the run whose tool call produced it" }),
    url: z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }).max(2048, "must be at most 2048 characters").optional(),
    note: Text(VALUE_TEXT_MAX_CHARS).optional(),
  })
  .superRefine((entry, context) => {
    const numeric = typeof entry.record_id === "number" || (/^[1-9]\d{0,9}$/.test(entry.record_id) && Number(entry.record_id) <= MAX_ID);
    if ((entry.source === "run" || entry.source === "document") && !numeric) {
      context.addIssue({ code: "custom", path: ["record_id"], message: `must be an integer ${entry.source} id` });
    }
    if (entry.source === "tool_result" && entry.run_id === undefined) {
      context.addIssue({ code: "custom", path: ["run_id"], message: "is required when source is tool_result" });
    }
    if (entry.source !== "tool_result" && entry.run_id !== undefined) {
      context.addIssue({ code: "custom", path: ["run_id"], message: "is only accepted when source is tool_result" });
    }
  })
  .meta({ id: "ValueEvidence" });
export type EvidenceEntry = z.infer<typeof EvidenceEntry>;

export const Observation = z
  .object({
    id: z.number().int(),
    use_case_id: z.number().int(),
    kind: z.enum(OBSERVATION_KINDS),
    evidence_level: z.enum(EVIDENCE_LEVELS),
    title: z.string(),
    amount_usd: z.number().nullable(),
    metric_name: z.string().nullable(),
    metric_value: z.number().nullable(),
    metric_unit: z.string().nullable(),
    evidence: z.array(EvidenceEntry),
    source_run_id: z.number().int().nullable(),
    observed_at: Timestamp,
    status: z.enum(OBSERVATION_STATUSES).meta({ description: "pending until POST /value/observations/{id}/confirm decides" }),
    decided_at: Timestamp.nullable(),
    decided_by_key_id: z.number().int().nullable().meta({ description: "The API key that confirmed or rejected it" }),
    user_id: z.string().nullable(),
    created_at: Timestamp,
  })
  .meta({ id: "ValueObservation" });
export type Observation = z.infer<typeof Observation>;

export const CreateObservationRequest = z
  .object({
    kind: z.enum(OBSERVATION_KINDS, { error: oneOf(OBSERVATION_KINDS) }),
    evidence_level: z.enum(EVIDENCE_LEVELS, { error: oneOf(EVIDENCE_LEVELS) }),
    title: Text(VALUE_TITLE_MAX_CHARS),
    amount_usd: z
      .number({ error: "must be a number" })
      .min(-VALUE_AMOUNT_MAX_USD, `must be at least -${VALUE_AMOUNT_MAX_USD}`)
      .max(VALUE_AMOUNT_MAX_USD, `must be at most ${VALUE_AMOUNT_MAX_USD}`)
      .optional()
      .meta({ description: "US dollars (negative for a loss), kept to the micro-dollar" }),
    metric_name: Text(VALUE_METRIC_NAME_MAX_CHARS).optional(),
    metric_value: z
      .number({ error: "must be a number" })
      .min(-VALUE_METRIC_MAX_ABS, `must be at least -${VALUE_METRIC_MAX_ABS}`)
      .max(VALUE_METRIC_MAX_ABS, `must be at most ${VALUE_METRIC_MAX_ABS}`)
      .optional(),
    metric_unit: Text(VALUE_METRIC_UNIT_MAX_CHARS).optional(),
    evidence: z
      .array(EvidenceEntry, { error: "must be an array of {source, record_id}" })
      .min(1, "must hold at least one entry")
      .max(VALUE_EVIDENCE_MAX_ITEMS, `must hold at most ${VALUE_EVIDENCE_MAX_ITEMS} entries`),
    source_run_id: PositiveId("run").optional().meta({ description: "A run of the use case's scope" }),
    observed_at: z.iso
      .datetime({ offset: true, error: "must be an ISO 8601 datetime with a time zone (2026-01-31T12:00:00Z)" })
      .meta({ description: "When the outcome happened; not in the future. The report buckets by it" }),
  user_id: UserId.optional().meta({ description: "End-user scope: in the query string, or here (both at once must agree)" }),
  })
  .superRefine((value, context) => {
    if (value.metric_name === undefined && (value.metric_value !== undefined || value.metric_unit !== undefined)) {
      context.addIssue({ code: "custom", path: ["metric_name"], message: "is required with metric_value or metric_unit" });
    }
  });
export type CreateObservationRequest = z.infer<typeof CreateObservationRequest>;

export const ListObservationsQuery = PageQuery.extend({
  starting_after: PathId.optional().meta({ description: "The id of the last item received" }),
  user_id: UserId.optional(),
});

export const ConfirmObservationRequest = z.object({
  decision: z.enum(DECISIONS, { error: oneOf(DECISIONS) }).meta({
    description: "confirmed: the value counts in the report; rejected: it does not",
  }),
  user_id: UserId.optional().meta({ description: "End-user scope: in the query string, or here (both at once must agree)" }),
});

// ---------------------------------------------------------------------------------------------
// Linked runs

export const LinkRunsRequest = z.object({
  run_ids: z
    .array(PositiveId("run"), { error: "must be an array of run ids" })
    .min(1, "must hold at least one run id")
    .max(VALUE_RUN_IDS_MAX_ITEMS, `must hold at most ${VALUE_RUN_IDS_MAX_ITEMS} run ids`),
  user_id: UserId.optional().meta({ description: "End-user scope: in the query string, or here (both at once must agree)" }),
});

export const LinkedRuns = z
  .object({
    use_case_id: z.number().int(),
    run_ids: z.array(z.number().int()).meta({ description: "The request's run ids, each once, ascending" }),
    added: z.number().int().meta({ description: "How many of them were not linked before" }),
    linked_run_count: z.number().int(),
  })
  .meta({ id: "ValueLinkedRuns" });

// ---------------------------------------------------------------------------------------------
// Report

export const ValueReportQuery = z.object({
  start_date: UtcDate.optional().meta({ description: "First UTC day; default 29 days before end_date" }),
  end_date: UtcDate.optional().meta({ description: "Last UTC day, inclusive; default today" }),
  user_id: UserId.optional(),
});

const UsdString = z.string().meta({ description: "US dollars as an exact decimal string (6 places)" });

const ValueFigures = z.object({
  confirmed_value_usd: UsdString.meta({ description: "Sum of amount_usd of confirmed observations: what the report counts" }),
  confirmed_value_micros: z.number().int(),
  pending_value_usd: UsdString.meta({ description: "Recorded but not yet decided: shown, not counted" }),
  rejected_value_usd: UsdString,
  value_by_evidence_level: z.object(
    Object.fromEntries(EVIDENCE_LEVELS.map((level) => [level, UsdString])) as Record<(typeof EVIDENCE_LEVELS)[number], typeof UsdString>,
  ).meta({ description: "Confirmed value per evidence level" }),
  observation_counts: z.object({ pending: z.number().int(), confirmed: z.number().int(), rejected: z.number().int() }),
  run_count: z.number().int().meta({ description: "Linked runs metered in the period" }),
  cost_usd: UsdString.meta({ description: "What the linked runs were metered at in the period" }),
  cost_micros: z.number().int(),
  net_usd: UsdString.meta({ description: "confirmed_value_usd - cost_usd" }),
  net_micros: z.number().int(),
  value_to_cost_ratio: z.number().nullable().meta({ description: "confirmed value / cost, 4 decimals; null without cost" }),
});

export const ValueReport = z
  .object({
    start_date: z.string(),
    end_date: z.string(),
    user_id: z.string().nullable(),
    use_cases: z.array(ValueFigures.extend({ use_case_id: z.number().int(), name: z.string(), status: z.enum(USE_CASE_STATUSES) })),
    totals: ValueFigures.meta({ description: "All use cases; a run linked to several counts once" }),
  })
  .meta({ id: "ValueReport" });
export type ValueReport = z.infer<typeof ValueReport>;
