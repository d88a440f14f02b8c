// Webhooks (/webhooks): registrations, their deliveries and attempts, request and response contracts.
import { z } from "zod";
import { PermissionMode } from "./agents";
import { IntId, PageQuery, Timestamp, UserId } from "./common";
import { RunStatus } from "./runs";

/** The event kinds a webhook subscribes to (concepts.md, "Webhook event kinds"). */
export const WEBHOOK_EVENT_TYPES = [
  "run.started",
  "run.completed",
  "run.failed",
  "run.cancelled",
  "run.awaiting_input",
  "run.message_received",
  "run.message_cancelled",
] as const;

/**
 * Inlay's kinds beyond the spec's (docs/platform-api.md, "Payments"): accepted in `events`, delivered
 * only to webhooks that name them (a webhook created without `events` gets the spec's kinds).
 */
export const INLAY_WEBHOOK_EVENT_TYPES = ["billing.low_balance"] as const;

export const WebhookEventType = z.enum([...WEBHOOK_EVENT_TYPES, ...INLAY_WEBHOOK_EVENT_TYPES]);
export type WebhookEventType = z.infer<typeof WebhookEventType>;

/**
 * Extension: the kind POST /webhooks/{id}/test sends. Not subscribable: it goes only to the webhook it
 * was asked for, whatever its `events`.
 */
export const WEBHOOK_TEST_EVENT = "webhook.test";

/** What a delivery carries: a subscribable kind, or a test event. */
export const DeliveredEventType = z.enum([...WebhookEventType.options, WEBHOOK_TEST_EVENT]);

export const WEBHOOK_URL_MAX_CHARS = 2_048;

export const Webhook = z
  .object({
    id: z.number().int(),
    url: z.string(),
    events: z.array(WebhookEventType),
    secret: z.string().meta({
      description: "The signing secret (whsec_...): in full when created or rotated, masked everywhere else",
    }),
    active: z.boolean(),
    user_id: z.string().nullable().meta({ description: "The end-user whose runs it receives; null for account-level runs" }),
    all_end_users: z.boolean().meta({
      description: "Extension: an account-level webhook that also receives every end-user's runs",
    }),
    disabled_reason: z
      .string()
      .nullable()
      .meta({ description: "Why delivery turned it off (it kept failing); cleared by PATCH active=true" }),
    previous_secret_expires_at: Timestamp.nullable().meta({
      description: "After rotate_secret, the previous secret also signs until then",
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: "Webhook" });

const WebhookUrl = z
  .string()
  .trim()
  .min(1, "must not be blank")
  .max(WEBHOOK_URL_MAX_CHARS, `must be at most ${WEBHOOK_URL_MAX_CHARS} characters`)
  .meta({ description: "HTTPS URL the events are POSTed to" });

const WebhookEvents = z
  .array(WebhookEventType)
  .min(1, "must name at least one event kind")
  .transform((events) => [...new Set(events)]);

export const CreateWebhookRequest = z.object({
  url: WebhookUrl,
  events: WebhookEvents.optional().meta({ description: "Kinds to receive; every kind when omitted" }),
  user_id: UserId.optional().meta({ description: "End-user scope; omit for account-level runs" }),
  all_end_users: z.boolean().optional().meta({
    description: "Extension, without user_id only: receive every end-user's runs too (default false: account-level runs only)",
  }),
});

export const UpdateWebhookRequest = z.object({
  url: WebhookUrl.optional(),
  events: WebhookEvents.optional(),
  active: z.boolean().optional().meta({ description: "false pauses delivery; true resumes it (and re-enables a disabled webhook)" }),
  all_end_users: z.boolean().optional().meta({ description: "Extension, account-level webhooks only (see POST)" }),
  rotate_secret: z.boolean().optional().meta({
    description: "true: a new secret, returned in full; the previous one also signs for 24 hours",
  }),
});

export const ListWebhooksQuery = PageQuery.extend({ user_id: UserId.optional() });

export const WebhookIdParam = z.object({ webhook_id: IntId });
export const WebhookDeliveryParams = z.object({ webhook_id: IntId, delivery_id: IntId });

export const WebhookAttempt = z
  .object({
    number: z.number().int().meta({ description: "1 for the first attempt" }),
    attempted_at: Timestamp,
    duration_ms: z.number().int(),
    response_status: z.number().int().nullable().meta({ description: "The receiver's HTTP status; null when none came" }),
    response_body: z.string().nullable().meta({ description: "The first 1 KB of the receiver's response" }),
    error: z.string().nullable().meta({ description: "Why the attempt failed, when it did" }),
    succeeded: z.boolean(),
  })
  .meta({ id: "WebhookAttempt" });

export const WEBHOOK_DELIVERY_STATUSES = ["pending", "succeeded", "failed"] as const;
export const WEBHOOK_DELIVERY_ORIGINS = ["dispatch", "replay", "test"] as const;

export const WebhookDelivery = z
  .object({
    id: z.number().int(),
    webhook_id: z.number().int(),
    message_id: z.string().meta({ description: "The webhook-id header: the same on every attempt and replay of the event" }),
    event_type: DeliveredEventType,
    run_id: z.number().int().nullable(),
    status: z.enum(WEBHOOK_DELIVERY_STATUSES).meta({
      description: "pending (another attempt is due), succeeded, or failed (gave up, or the webhook was turned off)",
    }),
    origin: z.enum(WEBHOOK_DELIVERY_ORIGINS).meta({
      description: "dispatch: the event as it happened; replay: queued by POST /webhooks/{id}/replay; test: POST /webhooks/{id}/test (one attempt, no retries)",
    }),
    attempt_count: z.number().int(),
    next_attempt_at: Timestamp.nullable(),
    error: z.string().nullable().meta({ description: "Why the delivery failed, once it has" }),
    attempts: z.array(WebhookAttempt).meta({ description: "Every attempt, oldest first" }),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: "WebhookDelivery" });

export const ListWebhookDeliveriesQuery = PageQuery.extend({
  user_id: UserId.optional(),
  status: z.enum(WEBHOOK_DELIVERY_STATUSES).optional().meta({ description: "Only deliveries in this status" }),
});

/** Events one replay queues at most; a replay that hits it says where to continue. */
export const WEBHOOK_REPLAY_MAX = 1_000;

export const ReplayWebhookRequest = z.object({
  since: Timestamp.meta({ description: "Replay the events that happened at or after this time" }),
  until: Timestamp.optional().meta({ description: "... and before this time (default: now)" }),
});

export const WebhookReplay = z
  .object({
    queued: z.number().int().meta({ description: "Deliveries queued, one per event" }),
    has_more: z.boolean().meta({ description: `More events in the window than one replay queues (${WEBHOOK_REPLAY_MAX})` }),
    next_since: Timestamp.nullable().meta({ description: "With has_more: call again with this since" }),
  })
  .meta({ id: "WebhookReplay" });

// The bodies the platform POSTs to webhooks (docs/platform-api.md, "Webhooks": Payloads), one contract
// per event kind: the OpenAPI document's `webhooks` section is generated from them.

const deliveredAt = {
  timestamp: Timestamp.meta({ description: "When the event happened (deliveries are not ordered: order by this)" }),
  truncated: z.literal(true).optional().meta({ description: "The body was over 256 KB: output_data and pending_requests were left out" }),
};

const runEventFields = {
  run_id: z.number().int(),
  teammate_id: z.number().int().meta({ description: "The run's agent" }),
  task_id: z.number().int().nullable(),
  user_id: z.string().nullable().meta({ description: "The end-user's user_id; null for an account-level run" }),
  status: RunStatus.meta({ description: "The run's status when the event happened" }),
  permission_mode: PermissionMode,
  ...deliveredAt,
};

const runEvent = <T extends (typeof WEBHOOK_EVENT_TYPES)[number], S extends z.ZodRawShape>(type: T, id: string, description: string, extra: S) =>
  z.object({ type: z.literal(type), ...runEventFields, ...extra }).meta({ id, description });

export const PendingRequestSummary = z
  .object({
    request_id: z.string(),
    tool_name: z.string(),
    kind: z.string().meta({ description: "tool, question, plan, or connection (an app to connect before the call goes on)" }),
    app: z.string().optional().meta({ description: "kind connection: the app slug" }),
  })
  .meta({ id: "WebhookPendingRequest" });

export const RUN_WEBHOOK_PAYLOADS = {
  "run.started": runEvent("run.started", "RunStartedEvent", "A run was created (committed with it)", {}),
  "run.completed": runEvent("run.completed", "RunCompletedEvent", "The run finished", {
    output_data: z.unknown().optional().meta({ description: "The structured result, when the run had an output_schema (never under metadata_only)" }),
  }),
  "run.failed": runEvent("run.failed", "RunFailedEvent", "The run failed (also when a worker ends it after its previous worker died)", {
    error: z.string().nullable().meta({ description: "Why it failed" }),
  }),
  "run.cancelled": runEvent("run.cancelled", "RunCancelledEvent", "The run was cancelled", {}),
  "run.awaiting_input": runEvent("run.awaiting_input", "RunAwaitingInputEvent", "The run paused for a person", {
    pending_requests: z.array(PendingRequestSummary).optional().meta({ description: "What it waits for" }),
  }),
  "run.message_received": runEvent("run.message_received", "RunMessageReceivedEvent", "A reply reopened the run", {}),
  "run.message_cancelled": runEvent("run.message_cancelled", "RunMessageCancelledEvent", "The run was cancelled while it worked on a reply (sent before run.cancelled)", {}),
} as const;

export const LowBalanceEvent = z
  .object({
    type: z.literal("billing.low_balance"),
    account_id: z.number().int(),
    balance_micros: z.number().int().meta({ description: "The balance in micro-USD" }),
    balance_usd: z.string().meta({ description: "The balance for display, in US dollars" }),
    low_balance_threshold_cents: z.number().int(),
    crossing: z.number().int().meta({ description: "Which crossing below the threshold this is (1 for the first)" }),
    user_id: z.null(),
    timestamp: deliveredAt.timestamp,
  })
  .meta({ id: "LowBalanceEvent", description: "Extension: the balance fell below the alert threshold (once per crossing)" });

export const WebhookTestEvent = z
  .object({
    type: z.literal(WEBHOOK_TEST_EVENT),
    webhook_id: z.number().int(),
    user_id: z.string().nullable().meta({ description: "The webhook's end-user; null for an account-level webhook" }),
    message: z.string(),
    timestamp: deliveredAt.timestamp,
  })
  .meta({ id: "WebhookTestEvent", description: "Extension: sent by POST /webhooks/{id}/test to check an endpoint; not tied to a run" });

/** Every body a webhook receives, by event kind. */
export const WEBHOOK_PAYLOADS: Record<z.infer<typeof DeliveredEventType>, z.ZodObject> = {
  ...RUN_WEBHOOK_PAYLOADS,
  "billing.low_balance": LowBalanceEvent,
  [WEBHOOK_TEST_EVENT]: WebhookTestEvent,
};
