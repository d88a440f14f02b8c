// The platform → framework half of the run ledger: the framework's webhook on its platform account,
// for every end-user's runs (all_end_users), of the kinds that end a run. Embedded, the framework
// registers it itself (at start, else on the ledger sweep's next pass) at
// <public origin>/api/platform-webhooks and keeps the secret the platform returns once sealed in
// framework_platform_accounts. Once a minute at most it checks the registration is still this app's:
// a new public origin (another domain, another port in development) moves it, a webhook the platform
// disabled after failed deliveries (the app was down) is turned back on, and one deleted on the
// platform is registered again. The embedded platform is told that URL is the app's own
// (server/framework/embedded-platform.ts, PlatformConfig.inProcessWebhooks): it accepts it whatever the outbound
// rules (http://localhost in `npm run dev` included) and hands each signed delivery to
// ledgerWebhookResponse in-process, as the route would get it. Remote, the operator registers the
// webhook on that platform and sets PLATFORM_WEBHOOK_SECRET. Should the platform refuse the URL, the
// sweep settles runs instead (about a minute after they end).
import { env } from "@/lib/env";
import { logger } from "@/lib/logger";
import { isRefusal, isRunWebhookEvent, NotFoundError, readHeader, verifyWebhook, WebhookVerificationError, type RunWebhookEvent, type WebhookEvent, type WebhookHeaders } from "@inlay/core/platform-client";
import { getDb, type Db } from "@/server/shared/db";
import { databaseMemo } from "@/server/shared/database-memo";
import { RouteError, routeJson } from "@/server/framework/http/route-member";
import { publicOrigin } from "@/server/shared/public-origin";
import { openWithKeys, seal } from "@/server/shared/secret-box";
import type { PlatformConnection } from "./platform-connection";
import { clearFrameworkWebhook, findFrameworkWebhook, setFrameworkWebhookIfAbsent } from "./platform-repository";
import { settleRunFromPlatform } from "./run-ledger";
import { appSpanFrom, SpanKind } from "../tracing";
import { keysFor, PLATFORM_WEBHOOK_SECRET } from "./sealing";

/** The kinds that end a run's turn: the ones the ledger settles on. */
export const LEDGER_EVENTS = ["run.completed", "run.failed", "run.cancelled"] as const;

export const LEDGER_WEBHOOK_PATH = "/api/platform-webhooks";

/** Where the platform delivers to the framework: this app's own endpoint. */
export const ledgerWebhookUrl = () => `${publicOrigin()}${LEDGER_WEBHOOK_PATH}`;

// A URL the platform refused is not offered again by this process (it would be refused every minute).
const refusedUrls = new Set<string>();
// The registration checked last, by the readiness probe or the sweep: at most once a minute.
const CHECK_EVERY_MS = 60_000;
const lastChecked = databaseMemo<{ webhookId: number; url: string; at: number; state: "ok" | "refused" }>();
const REGISTRATION = "ledger-webhook";

/**
 * The registered webhook still points at `url` and delivers: moved (a new public origin) or turned
 * back on (the platform disabled it) when not. "gone": the platform no longer has it.
 */
async function checkRegistration(prisma: Db, connection: PlatformConnection, webhookId: number, url: string): Promise<"ok" | "gone" | "refused"> {
  const checked = lastChecked.get(prisma, REGISTRATION);
  if (checked && checked.webhookId === webhookId && checked.url === url && Date.now() - checked.at < CHECK_EVERY_MS) return checked.state;
  let hook;
  try {
    hook = await connection.client.webhooks.get(webhookId);
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    await clearFrameworkWebhook(prisma, webhookId);
    return "gone";
  }
  if (hook.url !== url || !hook.active) {
    try {
      await connection.client.webhooks.update(webhookId, { url, active: true });
    } catch (error) {
      if (!isRefusal(error)) throw error;
      logger.warn({ err: error, url }, "run ledger: the platform refused to move the framework's webhook; runs are settled by the sweep");
      lastChecked.set(prisma, REGISTRATION, { webhookId, url, at: Date.now(), state: "refused" });
      return "refused";
    }
    logger.info({ from: hook.url, to: url, wasActive: hook.active }, "run ledger: the framework's webhook now delivers to this app");
  }
  lastChecked.set(prisma, REGISTRATION, { webhookId, url, at: Date.now(), state: "ok" });
  return "ok";
}

/**
 * Registers the framework's webhook on its embedded account unless it has one, and keeps the one it
 * has delivering to `url` (checkRegistration). Several instances may race: the first to record its
 * webhook wins and the others delete theirs. False when the platform refused the URL (logged; the
 * sweep settles instead).
 */
export async function ensureLedgerWebhook(
  prisma: Db,
  connection: PlatformConnection,
  url: string,
  secrets?: readonly string[],
): Promise<boolean> {
  if (connection.mode !== "embedded") return env.PLATFORM_WEBHOOK_SECRET !== undefined;
  const registered = await findFrameworkWebhook(prisma);
  if (registered) {
    const state = await checkRegistration(prisma, connection, registered.webhookId, url);
    if (state !== "gone") return state === "ok";
  }
  if (refusedUrls.has(url)) return false;
  let created;
  try {
    created = await connection.client.webhooks.create({ url, events: [...LEDGER_EVENTS], all_end_users: true });
  } catch (error) {
    if (!isRefusal(error)) throw error;
    refusedUrls.add(url);
    logger.warn({ err: error, url }, "run ledger: the platform refused the framework's webhook; runs are settled by the sweep");
    return false;
  }
  const [key] = keysFor(PLATFORM_WEBHOOK_SECRET, secrets);
  if (!(await setFrameworkWebhookIfAbsent(prisma, created.id, seal(key!, created.secret)))) {
    await connection.client.webhooks.delete(created.id);
  }
  return true;
}

/** The id of the framework's own webhook on its embedded account (null: none): not the owner's to edit. */
export async function ledgerWebhookId(prisma: Db): Promise<number | null> {
  return (await findFrameworkWebhook(prisma))?.webhookId ?? null;
}

// The registration's sealed secret (never the opened one), kept for a minute: every delivery verifies
// against it. A delivery that does not verify against a kept one reads it again (another instance may
// have registered the webhook anew).
const sealedSecrets = databaseMemo<{ cipher: string; at: number }>();

async function webhookSecret(
  prisma: Db,
  connection: PlatformConnection,
  secrets: readonly string[] | undefined,
  fresh: boolean,
): Promise<{ secret: string; kept: boolean } | null> {
  if (connection.mode === "remote") return env.PLATFORM_WEBHOOK_SECRET ? { secret: env.PLATFORM_WEBHOOK_SECRET, kept: false } : null;
  const open = (cipher: string) => openWithKeys(keysFor(PLATFORM_WEBHOOK_SECRET, secrets), cipher).value;
  const kept = sealedSecrets.get(prisma, REGISTRATION);
  if (!fresh && kept && Date.now() - kept.at < CHECK_EVERY_MS) return { secret: open(kept.cipher), kept: true };
  const row = await findFrameworkWebhook(prisma);
  if (!row) return null;
  sealedSecrets.set(prisma, REGISTRATION, { cipher: row.secretCipher, at: Date.now() });
  return { secret: open(row.secretCipher), kept: false };
}

export type LedgerDelivery =
  | { outcome: "settled"; event: RunWebhookEvent; settled: number }
  | { outcome: "ignored"; event: WebhookEvent; settled: 0 }
  | { outcome: "rejected"; reason: string };

/**
 * One delivery: verified against the framework's secret (Standard Webhooks), then, for a kind that
 * ends a run, the run settled from the platform (run-ledger.ts). `payload` is the raw body.
 */
export function receiveLedgerWebhook(
  prisma: Db,
  connection: PlatformConnection,
  payload: string,
  headers: WebhookHeaders,
  secrets?: readonly string[],
): Promise<LedgerDelivery> {
  // The delivery carries the run's trace (its traceparent): the settlement joins it.
  return appSpanFrom(readHeader(headers, "traceparent"), "ledger.webhook", { kind: SpanKind.SERVER }, async (span) => {
    const delivery = await verifyAndSettle(prisma, connection, payload, headers, secrets);
    span.setAttribute("inlay.ledger.outcome", delivery.outcome);
    if (delivery.outcome !== "rejected") span.setAttributes({ "inlay.ledger.settled": delivery.settled, "inlay.ledger.event": delivery.event.type });
    return delivery;
  });
}

async function verifyAndSettle(
  prisma: Db,
  connection: PlatformConnection,
  payload: string,
  headers: WebhookHeaders,
  secrets?: readonly string[],
): Promise<LedgerDelivery> {
  let event: WebhookEvent | undefined;
  for (let fresh = false; event === undefined; fresh = true) {
    const found = await webhookSecret(prisma, connection, secrets, fresh);
    if (!found) return { outcome: "rejected", reason: "no webhook is registered" };
    try {
      event = await verifyWebhook(payload, headers, found.secret);
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      if (!found.kept) return { outcome: "rejected", reason: error.message };
    }
  }
  if (!isRunWebhookEvent(event) || !(LEDGER_EVENTS as readonly string[]).includes(event.type) || !Number.isSafeInteger(event.run_id)) {
    return { outcome: "ignored", event, settled: 0 };
  }
  return { outcome: "settled", event, settled: await settleRunFromPlatform(prisma, connection, event.run_id) };
}

/**
 * POST /api/platform-webhooks (the route, and the embedded platform's in-process delivery): 401 for a
 * delivery that does not verify, else 200 with what the ledger did. Run it inside handleRoute. The
 * connection is passed in: the embedded platform delivers here, and the connection is made over it.
 */
export async function ledgerWebhookResponse(request: Request, connection: (prisma: Db) => Promise<PlatformConnection>): Promise<Response> {
  const { prisma } = await getDb();
  const delivery = await receiveLedgerWebhook(prisma, await connection(prisma), await request.text(), request.headers);
  if (delivery.outcome === "rejected") throw new RouteError(401, delivery.reason, { code: "webhook_not_verified" });
  return routeJson({ received: delivery.outcome, settled: delivery.settled });
}
