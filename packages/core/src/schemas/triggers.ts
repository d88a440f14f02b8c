// Task triggers (/tasks/{task_id}/triggers, /triggers): what starts a task's runs, and the history of
// each schedule's due times (fires).
import { z } from "zod";
import { AllowedSenders } from "./agents";
import { IntId, PageQuery, Timestamp, UserId } from "./common";

export const MISSED_RUNS_POLICIES = ["skip", "latest", "all"] as const;
/** The most due times one catch-up (missed_runs=all) starts. */
export const MAX_CATCH_UP_RUNS = 10;
/** The shortest interval a schedule may have. */
export const MIN_INTERVAL_SECONDS = 5;

export const TriggerId = z
  .string()
  .regex(/^[a-z][a-z0-9_.-]*_\d+$/, "must look like <type>_<n>, e.g. schedule_12")
  .meta({ description: "<type>_<n>, e.g. schedule_12" });

export const Trigger = z
  .object({
    id: z.string().meta({ description: "<type>_<n>" }),
    type: z.string().meta({ description: "schedule, webhook, email or an app event type" }),
    task_id: z.number().int(),
    user_id: z.string().nullable(),
    enabled: z.boolean(),
    cron: z.string().nullable(),
    interval_seconds: z.number().int().nullable(),
    run_at: Timestamp.nullable().meta({ description: "A one-time trigger's due time (UTC)" }),
    timezone: z.string().nullable(),
    app: z.string().nullable(),
    trigger_name: z.string().nullable(),
    trigger_config: z.record(z.string(), z.unknown()).nullable(),
    allowed_senders: z.array(z.string()),
    email_address: z.string().nullable().meta({ description: "An email trigger's address: mail to it (from allowed_senders) starts the task's run" }),
    missed_runs: z.enum(MISSED_RUNS_POLICIES).meta({
      description: "After downtime: skip the due times missed, run the latest (default), or all (at most 10)",
    }),
    max_lateness_seconds: z.number().int().meta({ description: "A due time later than this is skipped whatever the policy" }),
    next_run_at: Timestamp.nullable().meta({ description: "The next due time; null when disabled or retired" }),
    retired: z.boolean().meta({ description: "A one-time trigger that has fired" }),
    last_polled_at: Timestamp.nullable().meta({ description: "App event triggers (extension): when the app was last asked for new events" }),
    poll_error: z.string().nullable().meta({ description: "App event triggers (extension): why the last poll failed (no connection, the app's answer); null when it worked" }),
    webhook_url: z.string().optional().meta({
      description: "Only when POST /tasks/{task_id}/triggers creates (or rotates) a webhook trigger: its URL, shown this once",
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: "Trigger" });

const Cron = z.string().trim().min(1, "must not be blank").max(200);
const IntervalSeconds = z.number().int().min(MIN_INTERVAL_SECONDS, `must be at least ${MIN_INTERVAL_SECONDS}`).max(366 * 86_400);
/** ISO 8601; without an offset it is read in the trigger's timezone. */
const RunAt = z
  .string()
  .trim()
  .regex(/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:?\d{2})?$/, "must be an ISO 8601 date and time")
  .meta({ description: "ISO 8601; naive values are read in timezone" });
const Timezone = z.string().trim().min(1).max(64).meta({ description: "IANA name; UTC when omitted" });
const MissedRuns = z.enum(MISSED_RUNS_POLICIES);
const MaxLateness = z.number().int().min(60, "must be at least 60").max(7 * 86_400);

export const TriggerCreate = z.object({
  type: z.string().trim().min(1, "must not be blank").max(100),
  cron: Cron.optional(),
  interval_seconds: IntervalSeconds.optional(),
  run_at: RunAt.optional(),
  timezone: Timezone.optional(),
  app: z.string().trim().min(1).max(100).optional(),
  trigger_name: z.string().trim().min(1).max(100).optional(),
  trigger_config: z.record(z.string(), z.unknown()).optional(),
  user_id: UserId.optional(),
  allowed_senders: AllowedSenders.optional().meta({ description: "Email triggers: addresses or @domain patterns allowed to write" }),
  missed_runs: MissedRuns.optional(),
  max_lateness_seconds: MaxLateness.optional(),
});

export const TriggerUpdate = z.object({
  enabled: z.boolean().optional(),
  cron: Cron.optional(),
  interval_seconds: IntervalSeconds.optional(),
  run_at: RunAt.optional().meta({ description: "Reshapes the trigger into a one-time run" }),
  timezone: Timezone.optional(),
  missed_runs: MissedRuns.optional(),
  max_lateness_seconds: MaxLateness.optional(),
  allowed_senders: AllowedSenders.optional().meta({ description: "Email triggers only (extension): replaces the list" }),
  trigger_config: z.record(z.string(), z.unknown()).optional().meta({ description: "App event triggers only: replaces the config" }),
});

export const TaskTriggerParams = z.object({ task_id: IntId, trigger_id: TriggerId });
export const TaskIdParam = z.object({ task_id: IntId });

export const ListTriggersQuery = z.object({
  type: z.string().trim().min(1).max(100).optional(),
  task_id: IntId.optional(),
  limit: PageQuery.shape.limit,
  starting_after: z
    .string()
    .regex(/^\d+:[a-z][a-z0-9_.-]*_\d+$/, "must be <task_id>:<trigger_id>")
    .optional()
    .meta({ description: "<task_id>:<trigger_id> of the last trigger received" }),
  user_id: UserId.optional(),
});

export const TriggerFire = z
  .object({
    id: z.number().int(),
    trigger_id: z.string(),
    due_at: Timestamp,
    fired_at: Timestamp,
    outcome: z.enum(["starting", "started", "refused", "skipped"]).meta({
      description: "started (run_id), refused (a cap, the balance or a rate limit: reason), skipped (missed: reason)",
    }),
    run_id: z.number().int().nullable(),
    reason: z.string().nullable(),
  })
  .meta({ id: "TriggerFire" });

export const ListTriggerFiresQuery = PageQuery.extend({ user_id: UserId.optional() });

// The task's inbound webhook (/tasks/{task_id}/webhook): one per task, listed among its triggers as
// webhook_<n>. Its URL carries a secret token and is shown once, by the call that (re)issues it.

export const TaskWebhook = z
  .object({
    task_id: z.number().int(),
    user_id: z.string().nullable(),
    trigger_id: z.string().meta({ description: "The webhook's trigger: webhook_<n>" }),
    enabled: z.boolean().meta({ description: "false: paused; calls to its URL are refused (409) and start nothing" }),
    webhook_url: z.string().optional().meta({
      description: "Only in POST /tasks/{task_id}/webhook's response: the URL to call, shown this once (each POST rotates it)",
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: "TaskWebhook" });

export const TaskWebhookEnable = z.object({ user_id: UserId.optional() });
export const TaskWebhookUpdate = z.object({ enabled: z.boolean().meta({ description: "true resumes, false pauses" }) });

/** The inbound call's path: the token, whatever it looks like (a wrong one is a 404, not a 422). */
export const TaskWebhookTokenParam = z.object({ token: z.string().max(512) });

export const TaskWebhookAccepted = z
  .object({
    run_id: z.number().int(),
    status: z.string().meta({ description: "The run's status when accepted (queued or running)" }),
  })
  .meta({ id: "TaskWebhookAccepted" });
