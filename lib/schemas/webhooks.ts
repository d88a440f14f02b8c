// Webhooks (/webhooks): registrations, their deliveries and attempts, request and response contracts.
import { z } from "zod";
import { IntId, PageQuery, Timestamp, UserId } from "./common";

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

export const WebhookDelivery = z
  .object({
    id: z.number().int(),
    webhook_id: z.number().int(),
    message_id: z.string().meta({ description: "The webhook-id header: the same on every attempt and replay of the event" }),
    event_type: WebhookEventType,
    run_id: z.number().int().nullable(),
    status: z.enum(WEBHOOK_DELIVERY_STATUSES).meta({
      description: "pending (another attempt is due), succeeded, or failed (gave up, or the webhook was turned off)",
    }),
    origin: z.enum(["dispatch", "replay"]).meta({ description: "replay: queued by POST /webhooks/{id}/replay" }),
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
