// Webhooks: registrations (platform_webhooks), their deliveries and attempts, and the outbox's dispatch.
// The only module that touches those tables besides webhook-events.ts (the outbox's writes). Every
// registration query names the account and the end-user scope, so a foreign id is simply not found.
import type { Prisma, PrismaClient } from "@/server/generated/prisma/client";

export interface WebhookScope {
  accountId: number;
  endUserId: number | null;
}

const withUserId = { endUser: { select: { externalId: true } } } as const;
const scoped = (scope: WebhookScope) => ({ accountId: scope.accountId, endUserId: scope.endUserId });

export type WebhookRow = Awaited<ReturnType<typeof insertWebhook>>;

export const insertWebhook = (
  prisma: PrismaClient,
  scope: WebhookScope,
  input: { url: string; events: string[]; secretSealed: string; allEndUsers: boolean },
) => prisma.platformWebhook.create({ data: { ...scoped(scope), ...input }, include: withUserId });

export const findWebhook = (prisma: PrismaClient, scope: WebhookScope, id: number) =>
  prisma.platformWebhook.findFirst({ where: { ...scoped(scope), id }, include: withUserId });

/** Oldest first, after the cursor; limit + 1 rows so the caller can tell has_more. */
export const listWebhooks = (prisma: PrismaClient, scope: WebhookScope, page: { limit: number; startingAfter?: number }) =>
  prisma.platformWebhook.findMany({
    where: { ...scoped(scope), ...(page.startingAfter !== undefined ? { id: { gt: page.startingAfter } } : {}) },
    orderBy: { id: "asc" },
    take: page.limit + 1,
    include: withUserId,
  });

export const updateWebhook = (prisma: PrismaClient, id: number, data: Prisma.PlatformWebhookUncheckedUpdateInput) =>
  prisma.platformWebhook.update({ where: { id }, data, include: withUserId });

/** False when the scope holds no webhook with this id. Its deliveries and attempts go with it. */
export async function deleteWebhook(prisma: PrismaClient, scope: WebhookScope, id: number): Promise<boolean> {
  const { count } = await prisma.platformWebhook.deleteMany({ where: { ...scoped(scope), id } });
  return count > 0;
}

// --- Deliveries -------------------------------------------------------------------------------------

const deliveryInclude = {
  event: { select: { type: true, runId: true } },
  attemptLog: { orderBy: { number: "asc" } },
} as const satisfies Prisma.PlatformWebhookDeliveryInclude;

export type DeliveryRow = Awaited<ReturnType<typeof findDelivery>> & {};

/** Newest first, after the cursor; limit + 1 rows. */
export const listDeliveries = (
  prisma: PrismaClient,
  webhookId: number,
  page: { limit: number; startingAfter?: number; status?: string },
) =>
  prisma.platformWebhookDelivery.findMany({
    where: {
      webhookId,
      ...(page.status ? { status: page.status } : {}),
      ...(page.startingAfter !== undefined ? { id: { lt: BigInt(page.startingAfter) } } : {}),
    },
    orderBy: { id: "desc" },
    take: page.limit + 1,
    include: deliveryInclude,
  });

export const findDelivery = (prisma: PrismaClient, webhookId: number, deliveryId: number) =>
  prisma.platformWebhookDelivery.findFirst({ where: { id: BigInt(deliveryId), webhookId }, include: deliveryInclude });

/**
 * Makes a finished delivery due again now (POST .../retry); null when it is still pending. The next
 * attempt's number follows the ones already made.
 */
export async function rearmDelivery(prisma: PrismaClient, deliveryId: bigint) {
  const { count } = await prisma.platformWebhookDelivery.updateMany({
    where: { id: deliveryId, status: { not: "pending" } },
    data: { status: "pending", nextAttemptAt: new Date(), error: null },
  });
  return count > 0;
}

/**
 * Deliveries that gave up (status failed), across accounts, oldest first after `afterId`: the operator's
 * view (npm run inlay -- webhooks dead|retry), narrowed to an account, a webhook or some ids.
 */
export const listFailedDeliveries = (
  prisma: PrismaClient,
  filter: { accountId?: number; webhookId?: number; deliveryIds?: bigint[]; afterId?: bigint; limit: number },
) =>
  prisma.platformWebhookDelivery.findMany({
    where: {
      status: "failed",
      ...(filter.webhookId !== undefined ? { webhookId: filter.webhookId } : {}),
      ...(filter.accountId !== undefined ? { webhook: { accountId: filter.accountId } } : {}),
      ...(filter.deliveryIds !== undefined || filter.afterId !== undefined
        ? { id: { ...(filter.deliveryIds !== undefined ? { in: filter.deliveryIds } : {}), ...(filter.afterId !== undefined ? { gt: filter.afterId } : {}) } }
        : {}),
    },
    select: {
      id: true,
      webhookId: true,
      attempts: true,
      error: true,
      updatedAt: true,
      event: { select: { id: true, type: true, runId: true } },
      webhook: { select: { accountId: true, active: true, disabledReason: true } },
    },
    orderBy: { id: "asc" },
    take: filter.limit,
  });

export type FailedDeliveryRow = Awaited<ReturnType<typeof listFailedDeliveries>>[number];

/**
 * One new delivery (origin replay) per event of the webhook's scope and kinds in [since, until), oldest
 * first, at most `limit`; also says when the window held more, and where the next one starts.
 */
export async function insertReplayDeliveries(
  prisma: PrismaClient,
  webhook: { id: number; accountId: number; endUserId: number | null; allEndUsers: boolean; events: string[] },
  window: { since: Date; until: Date; limit: number },
): Promise<{ deliveryIds: bigint[]; nextSince: Date | null }> {
  return prisma.$transaction(async (tx) => {
    const events = await tx.$queryRaw<{ id: bigint; created_at: Date }[]>`
      SELECT id, created_at FROM platform_webhook_events
      WHERE account_id = ${webhook.accountId}
        AND (end_user_id IS NOT DISTINCT FROM ${webhook.endUserId}::int OR ${webhook.allEndUsers})
        AND type = ANY(${webhook.events}::text[])
        AND created_at >= ${window.since} AND created_at < ${window.until}
      ORDER BY created_at, id
      LIMIT ${window.limit + 1}`;
    const chosen = events.slice(0, window.limit);
    if (chosen.length === 0) return { deliveryIds: [], nextSince: null };
    const inserted = await tx.$queryRaw<{ id: bigint }[]>`
      INSERT INTO platform_webhook_deliveries (webhook_id, event_id, status, next_attempt_at, origin, created_at, updated_at)
      SELECT ${webhook.id}, event_id, 'pending', now(), 'replay', now(), now()
      FROM unnest(${chosen.map((event) => event.id)}::bigint[]) AS event_id
      RETURNING id`;
    return { deliveryIds: inserted.map((row) => row.id), nextSince: events[window.limit]?.created_at ?? null };
  });
}

/**
 * A test event (POST /webhooks/{id}/test) and its one delivery, in one statement. The event is stored
 * already dispatched, so the outbox never offers it to another webhook, and replays skip it (its kind is
 * in no webhook's events).
 */
export async function insertTestDelivery(
  prisma: PrismaClient,
  webhook: { id: number; accountId: number; endUserId: number | null },
  event: { type: string; payload: Prisma.InputJsonObject },
): Promise<bigint> {
  const rows = await prisma.$queryRaw<{ id: bigint }[]>`
    WITH event AS (
      INSERT INTO platform_webhook_events (account_id, end_user_id, type, payload, created_at, dispatched_at)
      VALUES (${webhook.accountId}, ${webhook.endUserId}::int, ${event.type}, ${JSON.stringify(event.payload)}::jsonb, now(), now())
      RETURNING id
    )
    INSERT INTO platform_webhook_deliveries (webhook_id, event_id, status, next_attempt_at, origin, created_at, updated_at)
    SELECT ${webhook.id}, event.id, 'pending', now(), 'test', now(), now() FROM event
    RETURNING id`;
  return rows[0]!.id;
}

// --- Dispatch: outbox rows to deliveries -------------------------------------------------------------

/**
 * Takes up to `batch` undispatched outbox rows (skipping rows another dispatcher holds), creates one
 * pending delivery per active webhook that subscribes to each, and marks the rows dispatched: one
 * statement, so a crash leaves either all of it or none. Each delivery comes back with its webhook's URL.
 */
export async function dispatchOutbox(prisma: PrismaClient, batch: number): Promise<{ taken: number; deliveries: { id: bigint; url: string }[] }> {
  const rows = await prisma.$queryRaw<{ taken: bigint; delivery_ids: bigint[] | null; delivery_urls: string[] | null }[]>`
    WITH picked AS (
      SELECT id, account_id, end_user_id, type FROM platform_webhook_events
      WHERE dispatched_at IS NULL ORDER BY id LIMIT ${batch} FOR UPDATE SKIP LOCKED
    ),
    marked AS (
      UPDATE platform_webhook_events e SET dispatched_at = now() FROM picked WHERE e.id = picked.id RETURNING e.id
    ),
    created AS (
      INSERT INTO platform_webhook_deliveries (webhook_id, event_id, status, next_attempt_at, created_at, updated_at)
      SELECT w.id, picked.id, 'pending', now(), now(), now()
      FROM picked JOIN platform_webhooks w
        ON w.account_id = picked.account_id
       AND (w.end_user_id IS NOT DISTINCT FROM picked.end_user_id OR w.all_end_users)
       AND w.active AND picked.type = ANY(w.events)
      ORDER BY picked.id, w.id
      RETURNING id, webhook_id
    )
    SELECT (SELECT count(*) FROM marked) AS taken,
      (SELECT array_agg(c.id ORDER BY c.id) FROM created c) AS delivery_ids,
      (SELECT array_agg(w.url ORDER BY c.id) FROM created c JOIN platform_webhooks w ON w.id = c.webhook_id) AS delivery_urls`;
  const row = rows[0]!;
  const urls = row.delivery_urls ?? [];
  return { taken: Number(row.taken), deliveries: (row.delivery_ids ?? []).map((id, index) => ({ id, url: urls[index]! })) };
}

// --- Attempts ----------------------------------------------------------------------------------------

/** What an attempt reads of its delivery, the webhook that signs it and the event it sends. */
export interface DeliveryForAttempt {
  status: string;
  attempts: number;
  origin: string;
  webhook: {
    id: number;
    url: string;
    active: boolean;
    disabledReason: string | null;
    secretSealed: string;
    previousSecretSealed: string | null;
    previousSecretExpiresAt: Date | null;
    failingSince: Date | null;
  };
  event: { id: bigint; accountId: number; runId: number | null; type: string; payload: Prisma.JsonValue; createdAt: Date };
}

/** The delivery with its webhook and event in one statement (an include reads them in three). */
export async function findDeliveryForAttempt(prisma: PrismaClient, deliveryId: bigint): Promise<DeliveryForAttempt | null> {
  const rows = await prisma.$queryRaw<
    {
      status: string;
      attempts: number;
      origin: string;
      webhook_id: number;
      url: string;
      active: boolean;
      disabled_reason: string | null;
      secret_sealed: string;
      previous_secret_sealed: string | null;
      previous_secret_expires_at: Date | null;
      failing_since: Date | null;
      event_id: bigint;
      account_id: number;
      run_id: number | null;
      type: string;
      payload: Prisma.JsonValue;
      created_at: Date;
    }[]
  >`
    SELECT d.status, d.attempts, d.origin, w.id AS webhook_id, w.url, w.active, w.disabled_reason, w.secret_sealed,
           w.previous_secret_sealed, w.previous_secret_expires_at, w.failing_since,
           e.id AS event_id, e.account_id, e.run_id, e.type, e.payload, e.created_at
    FROM platform_webhook_deliveries d
    JOIN platform_webhooks w ON w.id = d.webhook_id
    JOIN platform_webhook_events e ON e.id = d.event_id
    WHERE d.id = ${deliveryId}`;
  const row = rows[0];
  if (!row) return null;
  return {
    status: row.status,
    attempts: row.attempts,
    origin: row.origin,
    webhook: {
      id: row.webhook_id,
      url: row.url,
      active: row.active,
      disabledReason: row.disabled_reason,
      secretSealed: row.secret_sealed,
      previousSecretSealed: row.previous_secret_sealed,
      previousSecretExpiresAt: row.previous_secret_expires_at,
      failingSince: row.failing_since,
    },
    event: { id: row.event_id, accountId: row.account_id, runId: row.run_id, type: row.type, payload: row.payload, createdAt: row.created_at },
  };
}

export interface AttemptRecord {
  deliveryId: bigint;
  webhookId: number;
  number: number;
  attemptedAt: Date;
  durationMs: number;
  responseStatus: number | null;
  responseExcerpt: string | null;
  error: string | null;
  succeeded: boolean;
  /** The delivery's state after this attempt. */
  next: { status: "pending"; at: Date } | { status: "succeeded" } | { status: "failed"; error: string };
}

/**
 * Records an attempt and the delivery's new state; false when attempt `number` was recorded already
 * (a job that ran again after a crash), in which case nothing changes.
 */
export async function recordAttempt(prisma: PrismaClient, attempt: AttemptRecord): Promise<boolean> {
  const { next } = attempt;
  const changed = await prisma.$executeRaw`
    WITH attempt AS (
      INSERT INTO platform_webhook_attempts
        (delivery_id, number, attempted_at, duration_ms, response_status, response_excerpt, error, succeeded)
      VALUES (${attempt.deliveryId}, ${attempt.number}, ${attempt.attemptedAt}, ${attempt.durationMs},
        ${attempt.responseStatus}::int, ${attempt.responseExcerpt}, ${attempt.error}, ${attempt.succeeded})
      ON CONFLICT (delivery_id, number) DO NOTHING
      RETURNING delivery_id
    )
    UPDATE platform_webhook_deliveries d SET
      attempts = ${attempt.number},
      status = ${next.status},
      next_attempt_at = ${next.status === "pending" ? next.at : null}::timestamptz,
      error = ${next.status === "failed" ? next.error : null},
      updated_at = now()
    FROM attempt WHERE d.id = attempt.delivery_id`;
  return changed > 0;
}

/** A success ends the webhook's run of failures. */
export const markWebhookHealthy = (prisma: PrismaClient, webhookId: number) =>
  prisma.platformWebhook.updateMany({ where: { id: webhookId, failingSince: { not: null } }, data: { failingSince: null } });

/**
 * A failure starts (or continues) the webhook's run of failures; once that run began `disableAfterMs`
 * ago or more, the webhook is turned off with `reason` and its pending deliveries fail. True when
 * this call disabled it.
 */
export async function markWebhookFailing(
  prisma: PrismaClient,
  webhookId: number,
  at: Date,
  disableAfterMs: number,
  reason: string,
): Promise<boolean> {
  return prisma.$transaction(async (tx) => {
    const rows = await tx.$queryRaw<{ disabled: boolean }[]>`
      WITH decided AS (
        SELECT id, COALESCE(failing_since, ${at}) AS since,
          active AND COALESCE(failing_since, ${at}) <= ${at}::timestamptz - make_interval(secs => ${disableAfterMs / 1000}) AS disable
        FROM platform_webhooks WHERE id = ${webhookId} FOR UPDATE
      )
      UPDATE platform_webhooks w SET
        failing_since = decided.since,
        active = CASE WHEN decided.disable THEN false ELSE w.active END,
        disabled_reason = CASE WHEN decided.disable THEN ${reason} ELSE w.disabled_reason END,
        disabled_at = CASE WHEN decided.disable THEN now() ELSE w.disabled_at END,
        updated_at = now()
      FROM decided WHERE w.id = decided.id
      RETURNING decided.disable AS disabled`;
    const disabled = rows[0]?.disabled === true;
    if (disabled) await failPendingDeliveries(tx as PrismaClient, webhookId, `the webhook was disabled: ${reason}`);
    return disabled;
  });
}

/** Pending deliveries of a webhook that was turned off end failed (a replay brings them back). */
export const failPendingDeliveries = (prisma: PrismaClient, webhookId: number, error: string) =>
  prisma.platformWebhookDelivery.updateMany({
    where: { webhookId, status: "pending" },
    data: { status: "failed", nextAttemptAt: null, error },
  });

/** One delivery ends failed without an attempt (its webhook is off). */
export const failDelivery = (prisma: PrismaClient, deliveryId: bigint, error: string) =>
  prisma.platformWebhookDelivery.updateMany({
    where: { id: deliveryId, status: "pending" },
    data: { status: "failed", nextAttemptAt: null, error },
  });

/** Pending deliveries whose attempt was due before `before`: their job may be lost (the sweep's). */
export const findOverdueDeliveries = (prisma: PrismaClient, before: Date, limit: number) =>
  prisma.platformWebhookDelivery.findMany({
    where: { status: "pending", nextAttemptAt: { lt: before } },
    select: { id: true, attempts: true },
    orderBy: { nextAttemptAt: "asc" },
    take: limit,
  });

/** Outbox rows older than `before` and dispatched, with their deliveries: the retention job's. */
export const deleteDispatchedEventsBefore = async (prisma: PrismaClient, before: Date, limit: number) =>
  prisma.$executeRaw`
    DELETE FROM platform_webhook_events WHERE id IN (
      SELECT id FROM platform_webhook_events
      WHERE dispatched_at IS NOT NULL AND created_at < ${before}
      ORDER BY id LIMIT ${limit})`;
