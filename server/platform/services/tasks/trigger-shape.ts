// A trigger row as the API shows it (GET /triggers, GET /tasks/{task_id}/triggers, and the webhook
// trigger task-webhooks.ts answers with).
import type { z } from "zod";
import type { Trigger } from "@inlay/core/schemas/triggers";
import type { TriggerRow } from "../../repositories/task-triggers";

type TriggerOut = z.infer<typeof Trigger>;

export const triggerApiId = (row: { type: string; id: number }) => `${row.type}_${row.id}`;

export function toTrigger(row: TriggerRow): TriggerOut {
  return {
    id: triggerApiId(row),
    type: row.type,
    task_id: row.taskId,
    user_id: row.task.endUser?.externalId ?? null,
    enabled: row.enabled,
    cron: row.cron,
    interval_seconds: row.intervalSeconds,
    run_at: row.runAt?.toISOString() ?? null,
    timezone: row.timezone,
    app: row.app,
    trigger_name: row.triggerName,
    trigger_config: (row.triggerConfig as Record<string, unknown> | null) ?? null,
    allowed_senders: row.allowedSenders,
    email_address: row.type === "email" ? row.emailAddress : null,
    missed_runs: row.missedRuns as TriggerOut["missed_runs"],
    max_lateness_seconds: row.maxLatenessSeconds,
    next_run_at: row.enabled && !row.retiredAt ? (row.nextRunAt?.toISOString() ?? null) : null,
    retired: row.retiredAt !== null,
    last_polled_at: row.lastPolledAt?.toISOString() ?? null,
    poll_error: row.pollError,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
