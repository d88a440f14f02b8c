// Account settings (/settings): request and response contracts. Account-scoped: no user_id.
import { z } from "zod";

export const RetentionMode = z.enum(["standard", "metadata_only"], { error: "must be standard or metadata_only" });

// The columns are 32-bit integers.
const MAX_INT = 2_147_483_647;
const cap = (min: number) =>
  z
    .number({ error: "must be an integer or null" })
    .int("must be an integer or null")
    .min(min, `must be at least ${min} (or null to remove it)`)
    .max(MAX_INT, `must be at most ${MAX_INT}`);

export const Settings = z
  .object({
    retention_mode: RetentionMode,
    require_end_user_id: z.boolean(),
    per_end_user_run_limit: z.number().int().nullable(),
    per_end_user_cost_limit_cents: z.number().int().nullable(),
    per_end_user_rate_per_minute: z.number().int().nullable(),
    approval_email_enabled: z.boolean(),
    approval_chat_enabled: z.boolean(),
    company_research: z.boolean(),
  })
  .meta({ id: "Settings" });

/** Omitted fields stay as they are; null removes a cap. */
export const UpdateSettingsRequest = z.object({
  retention_mode: RetentionMode.optional(),
  require_end_user_id: z.boolean().optional(),
  // 0 is a real cap (no runs, no spend); "no cap" is null.
  per_end_user_run_limit: cap(0).nullable().optional(),
  per_end_user_cost_limit_cents: cap(0).nullable().optional(),
  // A rate of 0 would block every turn, which the run and cost caps already express; off is null.
  per_end_user_rate_per_minute: cap(1).nullable().optional(),
  approval_email_enabled: z.boolean().optional(),
  approval_chat_enabled: z.boolean().optional(),
  company_research: z.boolean().optional(),
});
