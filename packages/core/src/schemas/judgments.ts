// Judgments (/judgments): advisory verdicts over supplied state (mode decide, typed questions) or over
// claims and their evidence (mode verify), and the account's own provider key for customer funding.
// docs/platform-api.md, "Judgments", describes the shapes and rules.
import { z } from "zod";
import { IntId, Timestamp, UserId } from "./common";

/** 32 questions or claims (concepts.md, Limits). */
export const JUDGMENT_MAX_ITEMS = 32;
/** Per source: an evidence text, a referenced document or tool result, a claim, the state. */
export const JUDGMENT_SOURCE_MAX_CHARS = 16_384;
/** Everything the judge reads, after document and tool-result references are resolved. */
export const JUDGMENT_RESOLVED_MAX_BYTES = 128 * 1024;
export const JUDGMENT_PROMPT_MAX_CHARS = 4_000;
export const JUDGMENT_OPTION_MAX_CHARS = 500;
export const JUDGMENT_ID_MAX_CHARS = 64;
/** Results are kept this long; the metadata (cost, funding, model) 90 days. */
export const JUDGMENT_RESULT_DAYS = 30;
export const JUDGMENT_METADATA_DAYS = 90;
/** Names the rules the verify verdicts follow; changes when they do. */
export const RUBRIC_VERSION = "inlay-verify-2026-11";
/** `model` when no provider call was needed (every claim lacked evidence). */
export const MODEL_NOT_CALLED = "not_called";

/** The three answers of a Noul question: No, Unsure, Likely. */
export const NOUL_ANSWERS = ["no", "unsure", "likely"] as const;
/** A claim's verdict: the first three come from the judge, the last one without it. */
export const CLAIM_VERDICTS = ["supported", "unsupported", "contradicted", "insufficient_evidence"] as const;
export const JUDGE_VERDICTS = ["supported", "unsupported", "contradicted"] as const;
export const FUNDING_SOURCES = ["platform", "customer"] as const;
export const EVIDENCE_SOURCE_TYPES = ["document", "tool_result"] as const;

// Ids become property names of the judge's JSON schema: a letter or digit first keeps out `__proto__`.
export const JUDGMENT_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:-]*$/;
const ItemId = z
  .string()
  .min(1, "must not be empty")
  .max(JUDGMENT_ID_MAX_CHARS, `must be at most ${JUDGMENT_ID_MAX_CHARS} characters`)
  .regex(JUDGMENT_ID_PATTERN, "must start with a letter or digit and contain only letters, digits, _ . : -")
  .meta({ description: "The caller's id for the item, unique within its list; answers name it" });
const Prompt = z
  .string()
  .trim()
  .min(1, "must not be blank")
  .max(JUDGMENT_PROMPT_MAX_CHARS, `must be at most ${JUDGMENT_PROMPT_MAX_CHARS} characters`);
const SourceText = z.string().max(JUDGMENT_SOURCE_MAX_CHARS, `must be at most ${JUDGMENT_SOURCE_MAX_CHARS} characters`);

// `type` is case-insensitive: the spec names the types Choice, Score and Noul.
const typeOf = <T extends string>(name: T) => z.enum([name, `${name[0]!.toUpperCase()}${name.slice(1)}` as Capitalize<T>]);

export const ChoiceQuestion = z
  .object({
    type: typeOf("choice"),
    id: ItemId,
    prompt: Prompt,
    options: z
      .array(z.string().trim().min(1, "must not be blank").max(JUDGMENT_OPTION_MAX_CHARS))
      .min(2, "must list at least 2 options")
      .max(JUDGMENT_MAX_ITEMS, `must list at most ${JUDGMENT_MAX_ITEMS} options`)
      .refine((options) => new Set(options).size === options.length, "must not repeat an option"),
  })
  .meta({ id: "JudgmentChoiceQuestion", description: "Pick exactly one of `options`; the answer is the option's text" });

export const ScoreQuestion = z
  .object({
    type: typeOf("score"),
    id: ItemId,
    prompt: Prompt,
    min: z.number().int().default(0),
    max: z.number().int().default(10),
  })
  .refine((question) => question.max > question.min, { message: "must be greater than min", path: ["max"] })
  .meta({ id: "JudgmentScoreQuestion", description: "An integer from min to max inclusive (defaults 0 and 10)" });

export const NoulQuestion = z
  .object({
    type: typeOf("noul"),
    id: ItemId,
    prompt: Prompt,
  })
  .meta({
    id: "JudgmentNoulQuestion",
    description: "A hedged yes/no: the answer is no, unsure or likely (never a certain yes: verdicts are advisory)",
  });

export const JudgmentQuestion = z.union([ChoiceQuestion, ScoreQuestion, NoulQuestion]);

export const JudgmentClaim = z.object({
  id: ItemId,
  text: z.string().trim().min(1, "must not be blank").max(JUDGMENT_SOURCE_MAX_CHARS, `must be at most ${JUDGMENT_SOURCE_MAX_CHARS} characters`),
  evidence_ids: z.array(ItemId).max(JUDGMENT_MAX_ITEMS, `must list at most ${JUDGMENT_MAX_ITEMS} ids`).default([]),
});

export const EvidenceSource = z.object({
  type: z.enum(EVIDENCE_SOURCE_TYPES),
  id: z.number().int().positive().meta({ description: "A document id (GET /agents/{id}/documents) or a tool_result event id of a run, in the caller's scope" }),
});

export const JudgmentEvidence = z
  .object({ id: ItemId, text: SourceText.optional(), source: EvidenceSource.optional() })
  .refine((evidence) => (evidence.text === undefined) !== (evidence.source === undefined), {
    message: "give either text or source, never both",
    path: ["text"],
  });

const Common = {
  user_id: UserId.optional(),
  run_id: z.number().int().positive().optional().meta({ description: "A run of the same scope the judgment is about" }),
};

export const DecideRequest = z.object({
  mode: z.literal("decide"),
  state: z.unknown().refine((state) => state !== undefined, "is required").meta({ description: "What the questions are about: any JSON" }),
  questions: z
    .array(JudgmentQuestion)
    .min(1, "must list at least 1 question")
    .max(JUDGMENT_MAX_ITEMS, `must list at most ${JUDGMENT_MAX_ITEMS} questions`),
  ...Common,
});

export const VerifyRequest = z.object({
  mode: z.literal("verify"),
  claims: z.array(JudgmentClaim).min(1, "must list at least 1 claim").max(JUDGMENT_MAX_ITEMS, `must list at most ${JUDGMENT_MAX_ITEMS} claims`),
  evidence: z.array(JudgmentEvidence).max(JUDGMENT_MAX_ITEMS, `must list at most ${JUDGMENT_MAX_ITEMS} items`).default([]),
  ...Common,
});

export const CreateJudgmentRequest = z.discriminatedUnion("mode", [DecideRequest, VerifyRequest]).meta({ id: "CreateJudgmentRequest" });
export type CreateJudgmentRequest = z.input<typeof CreateJudgmentRequest>;

export const JudgmentAnswer = z
  .object({
    question_id: z.string(),
    type: z.enum(["choice", "score", "noul"]),
    answer: z.union([z.string(), z.number().int()]).meta({ description: "choice: the option; score: the integer; noul: no | unsure | likely" }),
    rationale: z.string(),
  })
  .meta({ id: "JudgmentAnswer" });

export const ClaimVerdict = z
  .object({
    claim_id: z.string(),
    verdict: z.enum(CLAIM_VERDICTS),
    evidence_ids: z.array(z.string()).meta({ description: "The claim's evidence that resolved and was judged" }),
    rationale: z.string(),
  })
  .meta({ id: "JudgmentClaimVerdict" });

export const EvidenceProvenance = z
  .object({
    evidence_id: z.string(),
    kind: z.enum(["text", ...EVIDENCE_SOURCE_TYPES]),
    source_id: z.number().int().nullable(),
    resolved: z.boolean().meta({ description: "false: the reference names nothing in the caller's scope" }),
    chars: z.number().int(),
    sha256: z.string().nullable().meta({ description: "Of the content the judge read" }),
    run_id: z.number().int().nullable(),
    agent_id: z.number().int().nullable(),
  })
  .meta({ id: "JudgmentEvidenceProvenance" });

export const Judgment = z
  .object({
    id: z.number().int(),
    object: z.literal("judgment"),
    mode: z.enum(["decide", "verify"]),
    user_id: z.string().nullable(),
    run_id: z.number().int().nullable(),
    answers: z.array(JudgmentAnswer).optional().meta({ description: "decide: one per question, in order" }),
    claims: z.array(ClaimVerdict).optional().meta({ description: "verify: one per claim, in order" }),
    rubric_version: z.string().optional(),
    coverage: z
      .object({
        claims_total: z.number().int(),
        claims_with_evidence: z.number().int(),
        evidence_total: z.number().int(),
        evidence_resolved: z.number().int(),
        evidence_cited: z.number().int(),
      })
      .optional(),
    provenance: z.array(EvidenceProvenance).optional(),
    independently_authenticated: z.literal(false),
    model: z.string().meta({ description: `The model called, or ${MODEL_NOT_CALLED}` }),
    usage: z.object({ input_tokens: z.number().int(), output_tokens: z.number().int() }),
    latency_ms: z.number().int(),
    cost_usd: z.string().meta({ description: "Estimated cost in USD (six decimals); never debited from the balance" }),
    funding_source: z.enum(FUNDING_SOURCES),
    created_at: Timestamp,
    expires_at: Timestamp.meta({ description: "After this, GET answers 410 result_not_retained" }),
  })
  .meta({ id: "Judgment" });
export type Judgment = z.infer<typeof Judgment>;

export const JudgmentIdParam = z.object({
  judgment_id: IntId.meta({ param: { name: "judgment_id", in: "path" } }),
});

export const JudgmentConnection = z
  .object({
    connected: z.boolean().meta({ description: "A key is stored (not validated)" }),
    enabled: z.boolean().meta({ description: "Judgments are available on this deployment (its kill switch is on)" }),
    funding_source: z.enum(FUNDING_SOURCES),
    model: z.string().meta({ description: "The model judgments use under this funding" }),
    updated_at: Timestamp.nullable(),
  })
  .meta({ id: "JudgmentConnection" });
export type JudgmentConnection = z.infer<typeof JudgmentConnection>;

export const PutJudgmentConnectionRequest = z.object({
  api_key: z.string().trim().min(1, "must not be blank").max(1_000).meta({ description: "Write-only; stored encrypted" }),
});
