// The webhook outbox (platform_webhook_events): one row per run event a webhook may deliver, written
// beside the change it reports, and only in a scope that has a webhook registered (active or not, so a
// paused one can replay it): an account without webhooks pays one index probe and writes nothing. A
// row no active webhook subscribes to is written dispatched, and wakes no dispatcher.
// jobs/webhook-delivery.ts dispatches the rows.
import { Prisma, type PrismaClient } from "@/server/generated/prisma/client";
import type { JsonObject } from "./db";

export interface NewWebhookEvent {
  accountId: number;
  endUserId: number | null;
  /** null for an account-level event that is not a run's (billing.low_balance). */
  runId: number | null;
  type: string;
  payload: JsonObject;
}

/** A webhook of the scope (its end-user's, or one of all end-users) exists, meeting `also` if given. */
const scopeHasWebhook = (accountId: Prisma.Sql, endUserId: Prisma.Sql, also: Prisma.Sql = Prisma.empty) =>
  Prisma.sql`EXISTS (SELECT 1 FROM platform_webhooks w WHERE w.account_id = ${accountId} AND (w.end_user_id IS NOT DISTINCT FROM ${endUserId} OR w.all_end_users)${also})`;

/** The condition under which a scope's events are kept: a webhook of that scope, or one of all end-users, exists. */
export const webhookInScope = (accountId: Prisma.Sql, endUserId: Prisma.Sql) => scopeHasWebhook(accountId, endUserId);

/**
 * An event's dispatched_at as it is written: null (to dispatch) when an active webhook of its scope
 * subscribes to its kind, else now(), so the dispatch (woken only for rows to dispatch) never reads
 * it. It is still kept, for a replay after a webhook's kinds change.
 */
export const dispatchedAtOnInsert = (accountId: Prisma.Sql, endUserId: Prisma.Sql, type: Prisma.Sql) =>
  Prisma.sql`CASE WHEN ${scopeHasWebhook(accountId, endUserId, Prisma.sql` AND w.active AND ${type} = ANY(w.events)`)} THEN NULL ELSE now() END`;

/**
 * The INSERT of one event, for a statement that writes it beside other changes (repositories/billing.ts);
 * `when`, a condition of that statement, keeps it out when the change it reports did not happen.
 */
export const webhookEventInsert = (event: NewWebhookEvent, when?: Prisma.Sql) => Prisma.sql`
    INSERT INTO platform_webhook_events (account_id, end_user_id, run_id, type, payload, created_at, dispatched_at)
    SELECT ${event.accountId}, ${event.endUserId}::int, ${event.runId}::int, ${event.type}, ${JSON.stringify(event.payload)}::jsonb, now(),
      ${dispatchedAtOnInsert(Prisma.sql`${event.accountId}`, Prisma.sql`${event.endUserId}::int`, Prisma.sql`${event.type}::text`)}
    WHERE ${when ? Prisma.sql`(${when}) AND ` : Prisma.empty}${webhookInScope(Prisma.sql`${event.accountId}`, Prisma.sql`${event.endUserId}::int`)}`;

export const insertWebhookEvent = (prisma: PrismaClient, event: NewWebhookEvent) => prisma.$executeRaw(webhookEventInsert(event));
