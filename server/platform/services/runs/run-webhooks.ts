// Webhook events of runs (concepts.md, "Webhook event kinds"), written to the outbox
// (platform_webhook_events) beside the change they report; jobs/webhook-delivery.ts sends them to the
// webhooks that subscribe. Each payload carries the run's status, and its delivery adds the event's
// time (`timestamp`): deliveries are not ordered, so receivers order by those.
import type { WebhookEventType } from "@inlay/core/schemas/webhooks";
import type { Db, JsonObject } from "../../repositories/db";
import { findEndUserExternalId } from "../../repositories/end-users";
import { insertWebhookEvent, type NewWebhookEvent } from "../../repositories/webhook-events";
import type { RunRow } from "../../repositories/runs";
import { METADATA_ONLY } from "../../infrastructure/redact";

export type RunWebhookType = WebhookEventType;

export interface RunWebhookExtra {
  pending_requests?: { request_id: string; tool_name: string; kind: string }[];
}

/** The run's fields its events are built from (runWebhookPayload, runWebhookEvent). */
export const WEBHOOK_RUN_FIELDS = [
  "id", "accountId", "endUserId", "agentId", "taskId", "status", "permissionMode", "outputSchema", "outputData", "retention", "error",
] as const satisfies readonly (keyof RunRow)[];

export type WebhookRun = Pick<RunRow, (typeof WEBHOOK_RUN_FIELDS)[number]>;

/**
 * The event's payload for the run in its current state: the run and what changed; run.completed
 * carries output_data when the run had an output_schema (never under metadata_only).
 */
export function runWebhookPayload(run: WebhookRun, type: RunWebhookType, userId: string | null, extra: RunWebhookExtra = {}) {
  const payload: Record<string, unknown> = {
    type,
    run_id: run.id,
    teammate_id: run.agentId,
    task_id: run.taskId,
    user_id: userId,
    status: run.status,
    permission_mode: run.permissionMode,
    ...extra,
  };
  if (type === "run.completed" && run.outputSchema !== null && run.retention !== METADATA_ONLY) {
    payload.output_data = run.outputData ?? null;
  }
  if (type === "run.failed") payload.error = run.error;
  return payload;
}

/**
 * Writes one event for the run in its current state (runWebhookPayload). `userId`, the end-user's
 * user_id, is read from the run's end-user when the caller does not know it.
 */
export async function recordRunWebhook(
  prisma: Db,
  run: RunRow,
  type: RunWebhookType,
  extra: RunWebhookExtra = {},
  userId?: string | null,
): Promise<void> {
  await insertWebhookEvent(prisma, await runWebhookEvent(prisma, run, type, extra, userId));
}

/** The event recordRunWebhook writes, for a caller that writes it with other changes in one statement. */
export async function runWebhookEvent(
  prisma: Db,
  run: WebhookRun,
  type: RunWebhookType,
  extra: RunWebhookExtra = {},
  userId?: string | null,
): Promise<NewWebhookEvent> {
  const known =
    userId !== undefined || run.endUserId === null
      ? (userId ?? null)
      : await findEndUserExternalId(prisma, run.endUserId);
  return {
    accountId: run.accountId,
    endUserId: run.endUserId,
    runId: run.id,
    type,
    payload: runWebhookPayload(run, type, known, extra) as JsonObject,
  };
}
