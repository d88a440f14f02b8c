// Webhook registrations and their deliveries (/webhooks). A webhook belongs to one scope: without
// user_id the account-level runs, with one that end-user's runs only (concepts.md, webhook rules); every
// operation names the scope, and a webhook of another scope is not found. Secrets are sealed at rest
// and shown in full only by the calls that create them.
import { randomBytes } from "node:crypto";
import type { z } from "zod";
import type { Page } from "@inlay/core/schemas/common";
import {
  type CreateWebhookRequest,
  type ReplayWebhookRequest,
  type UpdateWebhookRequest,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_REPLAY_MAX,
  WEBHOOK_TEST_EVENT,
  type Webhook,
  type WebhookDelivery,
  type WebhookEventType,
  type WebhookReplay,
} from "@inlay/core/schemas/webhooks";
import { SecretBoxError } from "@/server/shared/secret-box";
import type { PlatformConfig } from "../../platform-config";
import type { Db } from "../../repositories/db";
import { PlatformError } from "../../errors";
import type { JobQueue } from "../../infrastructure/job-queue";
import { enqueueAttempt, messageIdOf, SECRET_OVERLAP_MS } from "./webhook-attempts";
import { openSecret, SEALED_FOR, sealSecret } from "../sealed-secrets";
import { OutboundError } from "../../outbound/guarded-fetch";
import { checkUserUrl } from "../../outbound/user-url";
import * as webhooks from "../../repositories/webhooks";
import type { DeliveryRow, WebhookRow } from "../../repositories/webhooks";
import type { DataContext } from "../../infrastructure/hot-cache";
import type { AuthContext } from "../account/auth";
import { toPage } from "../pagination";
import { resolveScope, type Scope } from "../scope";

export type WebhookServiceContext = DataContext & { config: PlatformConfig; jobs: JobQueue };

type WebhookOut = z.infer<typeof Webhook>;

/** `whsec_` and 24 random bytes in base64, the Standard Webhooks form. */
const newSecret = () => `whsec_${randomBytes(24).toString("base64")}`;

/** Enough to tell secrets apart, not enough to use one. */
const maskSecret = (secret: string) => `whsec_****${secret.slice(-4)}`;

export function toWebhook(ctx: { config: PlatformConfig }, row: WebhookRow, secret?: { full: string } | { masked: string }): WebhookOut {
  const previousLive = row.previousSecretExpiresAt && row.previousSecretExpiresAt > new Date() ? row.previousSecretExpiresAt : null;
  return {
    id: row.id,
    url: row.url,
    events: row.events as WebhookEventType[],
    secret: secret && "full" in secret ? secret.full : secret?.masked ?? maskedOf(ctx, row),
    active: row.active,
    user_id: row.endUser?.externalId ?? null,
    all_end_users: row.allEndUsers,
    disabled_reason: row.disabledReason,
    previous_secret_expires_at: previousLive?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** The masked secret of a stored row: its last characters are read from the sealed value. */
function maskedOf(ctx: { config: PlatformConfig }, row: WebhookRow): string {
  try {
    return maskSecret(openSecret(ctx.config, row.secretSealed, SEALED_FOR.webhooks).value);
  } catch (error) {
    // Sealed under a key the platform no longer has: the endpoint is still listed, and a rotation mends it.
    if (error instanceof SecretBoxError) return "whsec_**** (cannot be decrypted: rotate this secret)";
    throw error;
  }
}

/** A URL a webhook may have: HTTPS (plain http and loopback only under OUTBOUND_ALLOW_LOOPBACK), no blocked literal address. */
function checkUrl(ctx: WebhookServiceContext, url: string): string {
  if (ctx.config.inProcessWebhooks?.some((target) => target.url === url)) return url;
  try {
    return checkUserUrl(url, { allowLoopback: ctx.config.outboundAllowLoopback === true }).toString();
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    throw new PlatformError({
      type: "validation_error",
      errorCode: "invalid_webhook_url",
      message: `url: ${error.message}`,
      details: { fields: [{ field: "url", message: error.message }] },
    });
  }
}

const allEndUsersNeedsAccountLevel = () =>
  new PlatformError({
    type: "validation_error",
    message: "all_end_users: is only for account-level webhooks (without user_id)",
    details: { fields: [{ field: "all_end_users", message: "is only for account-level webhooks (without user_id)" }] },
  });

const notFound = (id: number) => new PlatformError({ type: "not_found", message: `webhook ${id} not found` });

async function load(ctx: WebhookServiceContext, scope: Scope, id: number): Promise<WebhookRow> {
  const row = await webhooks.findWebhook(ctx.prisma, scope, id);
  if (!row) throw notFound(id);
  return row;
}

export async function createWebhook(
  ctx: WebhookServiceContext,
  auth: AuthContext,
  userId: string | undefined,
  input: z.infer<typeof CreateWebhookRequest>,
): Promise<WebhookOut> {
  const url = checkUrl(ctx, input.url);
  const scope = await resolveScope(ctx, auth, userId);
  if (input.all_end_users && scope.endUserId !== null) throw allEndUsersNeedsAccountLevel();
  const secret = newSecret();
  const row = await webhooks.insertWebhook(ctx.prisma, scope, {
    url,
    events: input.events ?? [...WEBHOOK_EVENT_TYPES],
    secretSealed: sealSecret(ctx.config, secret, SEALED_FOR.webhooks),
    allEndUsers: input.all_end_users ?? false,
  });
  return toWebhook(ctx, row, { full: secret });
}

export async function listWebhooks(
  ctx: WebhookServiceContext,
  auth: AuthContext,
  userId: string | undefined,
  page: { limit: number; startingAfter?: number },
): Promise<Page<WebhookOut>> {
  const scope = await resolveScope(ctx, auth, userId);
  return toPage(await webhooks.listWebhooks(ctx.prisma, scope, page), page.limit, (row) => toWebhook(ctx, row));
}

export async function getWebhook(ctx: WebhookServiceContext, auth: AuthContext, userId: string | undefined, id: number) {
  return toWebhook(ctx, await load(ctx, await resolveScope(ctx, auth, userId), id));
}

export async function updateWebhook(
  ctx: WebhookServiceContext,
  auth: AuthContext,
  userId: string | undefined,
  id: number,
  input: z.infer<typeof UpdateWebhookRequest>,
): Promise<WebhookOut> {
  const current = await load(ctx, await resolveScope(ctx, auth, userId), id);
  if (input.all_end_users && current.endUserId !== null) throw allEndUsersNeedsAccountLevel();
  const url = input.url === undefined ? undefined : checkUrl(ctx, input.url);
  const secret = input.rotate_secret ? newSecret() : undefined;
  const row = await webhooks.updateWebhook(ctx.prisma, current.id, {
    ...(url !== undefined ? { url } : {}),
    ...(input.events !== undefined ? { events: input.events } : {}),
    ...(input.all_end_users !== undefined ? { allEndUsers: input.all_end_users } : {}),
    // Turning it on again clears why it was turned off, and starts its failures afresh.
    ...(input.active === true ? { active: true, disabledReason: null, disabledAt: null, failingSince: null } : {}),
    ...(input.active === false ? { active: false } : {}),
    ...(secret
      ? {
          secretSealed: sealSecret(ctx.config, secret, SEALED_FOR.webhooks),
          previousSecretSealed: current.secretSealed,
          previousSecretExpiresAt: new Date(Date.now() + SECRET_OVERLAP_MS),
        }
      : {}),
  });
  if (input.active === false) await webhooks.failPendingDeliveries(ctx.prisma, row.id, "the webhook is paused (active=false)");
  return toWebhook(ctx, row, secret ? { full: secret } : undefined);
}

export async function deleteWebhook(ctx: WebhookServiceContext, auth: AuthContext, userId: string | undefined, id: number) {
  const scope = await resolveScope(ctx, auth, userId);
  if (!(await webhooks.deleteWebhook(ctx.prisma, scope, id))) throw notFound(id);
}

// --- Deliveries --------------------------------------------------------------------------------------

function toDelivery(row: DeliveryRow): z.infer<typeof WebhookDelivery> {
  return {
    id: Number(row.id),
    webhook_id: row.webhookId,
    message_id: messageIdOf(row.eventId),
    event_type: row.event.type as z.infer<typeof WebhookDelivery>["event_type"],
    run_id: row.event.runId,
    status: row.status as "pending" | "succeeded" | "failed",
    origin: row.origin as z.infer<typeof WebhookDelivery>["origin"],
    attempt_count: row.attempts,
    next_attempt_at: row.status === "pending" ? (row.nextAttemptAt?.toISOString() ?? null) : null,
    error: row.error,
    attempts: row.attemptLog.map((attempt) => ({
      number: attempt.number,
      attempted_at: attempt.attemptedAt.toISOString(),
      duration_ms: attempt.durationMs,
      response_status: attempt.responseStatus,
      response_body: attempt.responseExcerpt,
      error: attempt.error,
      succeeded: attempt.succeeded,
    })),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export async function listDeliveries(
  ctx: WebhookServiceContext,
  auth: AuthContext,
  userId: string | undefined,
  id: number,
  page: { limit: number; startingAfter?: number; status?: string },
) {
  const webhook = await load(ctx, await resolveScope(ctx, auth, userId), id);
  return toPage(await webhooks.listDeliveries(ctx.prisma, webhook.id, page), page.limit, toDelivery);
}

/** POST /webhooks/{id}/deliveries/{delivery_id}/retry: one more attempt now, for a finished delivery. */
export async function retryDelivery(
  ctx: WebhookServiceContext,
  auth: AuthContext,
  userId: string | undefined,
  id: number,
  deliveryId: number,
) {
  const webhook = await load(ctx, await resolveScope(ctx, auth, userId), id);
  const delivery = await webhooks.findDelivery(ctx.prisma, webhook.id, deliveryId);
  if (!delivery) throw new PlatformError({ type: "not_found", message: `delivery ${deliveryId} of webhook ${id} not found` });
  requireActive(webhook);
  if (!(await rearmAndEnqueue(ctx, delivery))) {
    throw new PlatformError({
      type: "conflict_error",
      message: `delivery ${deliveryId} is still pending; its next attempt is at ${delivery.nextAttemptAt?.toISOString() ?? "once its job runs"}`,
    });
  }
  return toDelivery((await webhooks.findDelivery(ctx.prisma, webhook.id, deliveryId))!);
}

/**
 * POST /webhooks/{id}/test: a webhook.test event sent to this webhook only, signed like any other, in
 * one attempt (the owner sees its answer and can send another). Answers the pending delivery.
 */
export async function sendTestEvent(ctx: WebhookServiceContext, auth: AuthContext, userId: string | undefined, id: number) {
  const webhook = await load(ctx, await resolveScope(ctx, auth, userId), id);
  requireActive(webhook);
  const deliveryId = await webhooks.insertTestDelivery(ctx.prisma, webhook, { type: WEBHOOK_TEST_EVENT, payload: testEventPayload(webhook) });
  await enqueueAttempt(ctx.jobs, deliveryId, 1);
  return toDelivery((await webhooks.findDelivery(ctx.prisma, webhook.id, Number(deliveryId)))!);
}

export const testEventPayload = (webhook: { id: number; endUser: { externalId: string } | null }) => ({
  type: WEBHOOK_TEST_EVENT,
  webhook_id: webhook.id,
  user_id: webhook.endUser?.externalId ?? null,
  message: "A test event: this endpoint receives and verifies the platform's webhooks.",
});

/** A finished delivery made due now and its next attempt enqueued; false when it is still pending. */
async function rearmAndEnqueue(ctx: { prisma: Db; jobs: JobQueue }, delivery: { id: bigint; attempts: number }): Promise<boolean> {
  if (!(await webhooks.rearmDelivery(ctx.prisma, delivery.id))) return false;
  await enqueueAttempt(ctx.jobs, delivery.id, delivery.attempts + 1);
  return true;
}

/** A delivery that gave up, as the operator sees it (no URL: it may carry a token). */
export interface FailedDelivery {
  id: number;
  webhook_id: number;
  account_id: number;
  event_id: number;
  event_type: string;
  run_id: number | null;
  attempts: number;
  error: string | null;
  failed_at: string;
}

const toFailedDelivery = (row: webhooks.FailedDeliveryRow): FailedDelivery => ({
  id: Number(row.id),
  webhook_id: row.webhookId,
  account_id: row.webhook.accountId,
  event_id: Number(row.event.id),
  event_type: row.event.type,
  run_id: row.event.runId,
  attempts: row.attempts,
  error: row.error,
  failed_at: row.updatedAt.toISOString(),
});

export interface FailedDeliveryFilter {
  accountId?: number;
  webhookId?: number;
  deliveryIds?: number[];
  limit: number;
}

const PAGE = 500;

async function eachFailedDelivery(prisma: Db, filter: FailedDeliveryFilter, visit: (row: webhooks.FailedDeliveryRow) => Promise<void>) {
  let seen = 0;
  for (let afterId: bigint | undefined; seen < filter.limit; ) {
    const rows = await webhooks.listFailedDeliveries(prisma, {
      accountId: filter.accountId,
      webhookId: filter.webhookId,
      deliveryIds: filter.deliveryIds?.map(BigInt),
      afterId,
      limit: Math.min(PAGE, filter.limit - seen),
    });
    for (const row of rows) await visit(row);
    seen += rows.length;
    if (rows.length < PAGE) return;
    afterId = rows.at(-1)!.id;
  }
}

/** Deliveries that gave up, across accounts (npm run inlay -- webhooks dead). */
export async function listFailedDeliveries(prisma: Db, filter: FailedDeliveryFilter): Promise<FailedDelivery[]> {
  const found: FailedDelivery[] = [];
  await eachFailedDelivery(prisma, filter, async (row) => void found.push(toFailedDelivery(row)));
  return found;
}

/**
 * The operator's retry of deliveries that gave up (npm run inlay -- webhooks retry): each one made due
 * again as POST /webhooks/{id}/deliveries/{delivery_id}/retry does it. Those of a paused or disabled
 * webhook are skipped with the reason (that call answers 409 webhook_inactive for them).
 */
export async function retryFailedDeliveries(
  ctx: { prisma: Db; jobs: JobQueue },
  filter: FailedDeliveryFilter,
): Promise<{ retried: FailedDelivery[]; skipped: (FailedDelivery & { reason: string })[] }> {
  const retried: FailedDelivery[] = [];
  const skipped: (FailedDelivery & { reason: string })[] = [];
  await eachFailedDelivery(ctx.prisma, filter, async (row) => {
    const delivery = toFailedDelivery(row);
    if (!row.webhook.active) {
      const state = row.webhook.disabledReason ? `disabled (${row.webhook.disabledReason})` : "paused";
      skipped.push({ ...delivery, reason: `webhook ${row.webhookId} is ${state}; PATCH it with active=true first` });
    } else if (await rearmAndEnqueue(ctx, row)) {
      retried.push(delivery);
    }
    // Otherwise another caller retried it since it was read: it is pending again either way.
  });
  return { retried, skipped };
}

/** POST /webhooks/{id}/replay: the scope's events since a time, queued again for this webhook. */
export async function replayWebhook(
  ctx: WebhookServiceContext,
  auth: AuthContext,
  userId: string | undefined,
  id: number,
  input: z.infer<typeof ReplayWebhookRequest>,
): Promise<z.infer<typeof WebhookReplay>> {
  const webhook = await load(ctx, await resolveScope(ctx, auth, userId), id);
  requireActive(webhook);
  const since = new Date(input.since);
  const until = input.until ? new Date(input.until) : new Date();
  if (until <= since) {
    throw new PlatformError({
      type: "validation_error",
      message: "until: must be after since",
      details: { fields: [{ field: "until", message: "must be after since" }] },
    });
  }
  const { deliveryIds, nextSince } = await webhooks.insertReplayDeliveries(ctx.prisma, webhook, { since, until, limit: WEBHOOK_REPLAY_MAX });
  for (const deliveryId of deliveryIds) await enqueueAttempt(ctx.jobs, deliveryId, 1);
  return { queued: deliveryIds.length, has_more: nextSince !== null, next_since: nextSince?.toISOString() ?? null };
}

function requireActive(webhook: WebhookRow) {
  if (webhook.active) return;
  throw new PlatformError({
    type: "conflict_error",
    errorCode: "webhook_inactive",
    message: `webhook ${webhook.id} is ${webhook.disabledReason ? `disabled (${webhook.disabledReason})` : "paused"}; PATCH it with active=true first`,
  });
}
