// Webhook delivery (docs/platform-api.md, "Webhooks"): outbox rows become deliveries, and each delivery
// is attempted by durable jobs until one attempt succeeds or the retry schedule is spent.
//
//   dispatch   woken by the outbox's NOTIFY (a trigger, at commit) in every process that works, and run
//              by the sweep every minute: one statement turns undispatched rows into pending deliveries
//   attempt    a job per (delivery, attempt number), keyed by both: signs and POSTs the event through the
//              outbound guard, records the attempt, and enqueues the next one at its time. The first
//              attempt to the embedding app's own endpoint (PlatformConfig.inProcessWebhooks) is made
//              by the dispatch in-process, without a job, once this process's runs under way have said
//              their first words (or inProcessWaitMs at most)
//   sweep      every minute: dispatches what no wake-up reached and re-enqueues attempts whose job was
//              lost (a process killed between recording an attempt and enqueueing the next)
//   retention  daily: outbox rows (and their deliveries) older than RUN_EVENT_RETENTION_DAYS go; a
//              replay reaches back that far
//
// At least once: a process killed during an attempt leaves its job active; pg-boss expires it and runs
// it again, so a receiver may see an event twice (the same webhook-id each time). Attempts are recorded
// once each (unique per delivery and number). Deliveries are not ordered.
import { addLogContext, withLogContext } from "@/lib/log-context";
import { Webhook as StandardWebhook } from "standardwebhooks";
import { logger } from "@/lib/logger";
import type { Db } from "../repositories/db";
import { SecretBoxError } from "@/server/shared/secret-box";
import { openSecret, SEALED_FOR } from "../services/sealed-secrets";
import type { PlatformConfig, WebhookSettings } from "../platform-config";
import { webhookAttempts, webhookDeliveryLag } from "../observability/metrics";
import { contextFromTraceparent, currentTraceContext, inSpan, SpanKind, tracingEnabled } from "../observability/tracing";
import { findRunTraceContext } from "../repositories/runs";
import { guardedFetch, OutboundError } from "../outbound/guarded-fetch";
import {
  deleteDispatchedEventsBefore,
  dispatchOutbox,
  failDelivery,
  findDeliveryForAttempt,
  findOverdueDeliveries,
  markWebhookFailing,
  markWebhookHealthy,
  recordAttempt,
} from "../repositories/webhooks";
import type { Signals } from "../infrastructure/signals";
import { type JobQueue, jobIdForKey } from "../infrastructure/job-queue";
import { ATTEMPT_JOB, type AttemptData, enqueueAttempt, messageIdOf } from "../services/webhooks/webhook-attempts";
import { firstWordsSaid } from "../runtime/fair-share";

export const WEBHOOK_DEFAULTS: WebhookSettings = {
  retryScheduleMs: [0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
  disableAfterMs: 5 * 86_400_000,
  timeoutMs: 15_000,
  inProcessWaitMs: 1_000,
};

export const webhookSettings = (config: PlatformConfig): WebhookSettings => ({ ...WEBHOOK_DEFAULTS, ...config.webhooks });

/** The signal the outbox's trigger sends when rows commit (see the webhooks migration). */
export const WEBHOOK_EVENTS_SIGNAL = "webhook-events";
export const SWEEP_JOB = "webhook-sweep";
export const RETENTION_JOB = "webhook-event-retention";
const RETENTION_BATCH = 1_000;

/** The spec's cap on webhook payloads (concepts.md, limits). */
export const WEBHOOK_PAYLOAD_MAX_BYTES = 256 * 1024;
const RESPONSE_EXCERPT_CHARS = 1_024;
const DISPATCH_BATCH = 500;
/** First attempts to the embedding app's own endpoint made in-process at once; up to INLINE_WAITING more wait for a slot, the rest are jobs. */
const INLINE_ATTEMPTS = 8;
const INLINE_WAITING = 1_000;
/** An attempt overdue by this much has lost its job (the sweep's threshold). */
const OVERDUE_MS = 60_000;

/** The body sent for an event: its payload and its time; an over-cap output_data is left out. */
export function webhookBody(payload: Record<string, unknown>, createdAt: Date): string {
  const body = JSON.stringify({ ...payload, timestamp: createdAt.toISOString() });
  if (Buffer.byteLength(body) <= WEBHOOK_PAYLOAD_MAX_BYTES) return body;
  // Only output_data and pending requests can grow; the receiver reads the run for them.
  const { output_data: _output, pending_requests: _pending, ...rest } = payload;
  return JSON.stringify({ ...rest, timestamp: createdAt.toISOString(), truncated: true });
}

/** The Standard Webhooks headers: one v1 signature per secret that signs now. */
export function signatureHeaders(messageId: string, body: string, secrets: string[], at: Date): Record<string, string> {
  const timestamp = Math.floor(at.getTime() / 1000);
  const signatures = secrets.map((secret) => new StandardWebhook(secret).sign(messageId, new Date(timestamp * 1000), body));
  return {
    "webhook-id": messageId,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": signatures.join(" "),
  };
}

export interface WebhookDeliveryDeps {
  prisma: Db;
  config: PlatformConfig;
  jobs: JobQueue;
  signals: Signals;
}

export interface WebhookDelivery {
  /** Dispatches outbox rows now (and again if more arrive meanwhile). */
  dispatch(): Promise<void>;
  /** Stops listening for wake-ups and waits for a dispatch in progress. */
  stop(): Promise<void>;
}

/**
 * Registers the attempt and sweep jobs on the queue, and in a process that works, listens for the
 * outbox's wake-ups.
 */
export async function registerWebhookDelivery(deps: WebhookDeliveryDeps, options: { work: boolean }): Promise<WebhookDelivery> {
  const { prisma, jobs } = deps;
  const settings = webhookSettings(deps.config);

  let running: Promise<void> | undefined;
  let again = false;
  let stopping = false;
  // First attempts to the embedding app's own endpoint, made here at once rather than through a job
  // (the job's insert, fetch and completion were most of such a delivery's statements); at most
  // INLINE_ATTEMPTS at a time. A burst's others wait here for a slot, up to INLINE_WAITING (beyond
  // that, jobs), so fifty runs ending together cost no job each. One that throws becomes a job; those
  // still waiting when the process stops are handed to the queue; one lost with the process is
  // re-enqueued by the sweep, as a lost job is.
  // Such an attempt is bookkeeping after an answer (the run ledger's): it first lets the runs of this
  // process that have not said their first word yet do so, up to inProcessWaitMs after its dispatch.
  const inline = new Set<Promise<unknown>>();
  const waiting: { deliveryId: bigint; dispatchedAt: number }[] = [];
  const stopWaiting = new AbortController();
  const inProcessTarget = (url: string) => deps.config.inProcessWebhooks?.find((target) => target.url === url);
  const attemptInline = (deliveryId: bigint, dispatchedAt: number) => {
    const attempting = withLogContext({}, async () => {
      await firstWordsSaid(dispatchedAt + settings.inProcessWaitMs, stopWaiting.signal);
      return attemptDelivery({ deliveryId: String(deliveryId), number: 1 });
    }).catch(async (error: unknown) => {
      logger.warn({ err: error, deliveryId: String(deliveryId) }, "in-process webhook attempt failed; it is retried as a job");
      await enqueueAttempt(jobs, deliveryId, 1).catch(() => {});
    });
    inline.add(attempting);
    void attempting.finally(() => {
      inline.delete(attempting);
      const next = stopping ? undefined : waiting.shift();
      if (next !== undefined) attemptInline(next.deliveryId, next.dispatchedAt);
    });
  };
  const firstAttempt = async (delivery: { id: bigint; url: string }) => {
    if (!inProcessTarget(delivery.url) || stopping) return enqueueAttempt(jobs, delivery.id, 1);
    if (inline.size < INLINE_ATTEMPTS) return attemptInline(delivery.id, Date.now());
    if (waiting.length < INLINE_WAITING) return void waiting.push({ deliveryId: delivery.id, dispatchedAt: Date.now() });
    return enqueueAttempt(jobs, delivery.id, 1);
  };
  const drain = async () => {
    do {
      again = false;
      for (;;) {
        const { taken, deliveries } = await dispatchOutbox(prisma, DISPATCH_BATCH);
        for (const delivery of deliveries) await firstAttempt(delivery);
        if (taken < DISPATCH_BATCH) break;
      }
    } while (again);
  };
  const dispatch = () => {
    if (running) {
      again = true;
      return running;
    }
    running = drain()
      .catch((error: unknown) => logger.warn({ err: error }, "webhook dispatch failed; the sweep retries it"))
      .finally(() => (running = undefined));
    return running;
  };

  const attempt = ({ data }: { data: AttemptData }) => withLogContext({}, () => attemptDelivery(data));
  const attemptDelivery = async (data: AttemptData) => {
    const deliveryId = BigInt(data.deliveryId);
    const target = await findDeliveryForAttempt(prisma, deliveryId);
    // Gone (its webhook deleted), finished, or this attempt made already (a job run again after a crash).
    if (!target || target.status !== "pending" || target.attempts >= data.number) return { skipped: true };
    const { webhook, event } = target;
    addLogContext({ accountId: event.accountId, ...(event.runId !== null ? { runId: event.runId } : {}) });
    if (!webhook.active) {
      await failDelivery(prisma, deliveryId, webhook.disabledReason ? `the webhook was disabled: ${webhook.disabledReason}` : "the webhook is paused (active=false)");
      return { skipped: true };
    }
    const attemptedAt = new Date();
    const secrets: string[] = [];
    try {
      secrets.push(openSecret(deps.config, webhook.secretSealed, SEALED_FOR.webhooks).value);
      if (webhook.previousSecretSealed && webhook.previousSecretExpiresAt && webhook.previousSecretExpiresAt > attemptedAt) {
        secrets.push(openSecret(deps.config, webhook.previousSecretSealed, SEALED_FOR.webhooks).value);
      }
    } catch (error) {
      if (!(error instanceof SecretBoxError)) throw error;
      // No retry can sign it: said on the delivery, where its owner looks.
      await failDelivery(prisma, deliveryId, "the webhook's signing secret cannot be decrypted (INLAY_SECRET_KEY changed without INLAY_SECRET_KEY_PREVIOUS): rotate its secret");
      return { skipped: true };
    }
    const body = webhookBody(event.payload as Record<string, unknown>, event.createdAt);
    // A run's deliveries join its trace (read only while tracing: off, it costs nothing).
    const parent = tracingEnabled() && event.runId !== null ? contextFromTraceparent(await findRunTraceContext(prisma, event.runId)) : undefined;
    const attributes = { "inlay.webhook.id": webhook.id, "inlay.webhook.event_type": event.type, "inlay.webhook.attempt": data.number };
    const outcome = await inSpan("webhook.attempt", { kind: SpanKind.PRODUCER, parent, attributes }, async (span) => {
      if (span) addLogContext({ traceId: span.spanContext().traceId });
      // The receiver may continue the run's trace (the framework's run ledger does).
      const traceparent = currentTraceContext();
      const headers = { ...signatureHeaders(messageIdOf(event.id), body, secrets, attemptedAt), ...(traceparent ? { traceparent } : {}) };
      const sent = await send(webhook.url, body, headers);
      span?.setAttribute("inlay.webhook.delivered", sent.succeeded);
      return sent;
    });
    // A test event is tried once and says nothing of the endpoint's health: its sender is watching.
    const isTest = target.origin === "test";
    const more = !isTest && data.number < settings.retryScheduleMs.length;
    const next = outcome.succeeded
      ? ({ status: "succeeded" } as const)
      : more
        ? ({ status: "pending", at: new Date(Date.now() + settings.retryScheduleMs[data.number]!) } as const)
        : ({ status: "failed", error: `gave up after ${data.number} attempts: ${outcome.error}` } as const);
    const recorded = await recordAttempt(prisma, {
      deliveryId,
      webhookId: webhook.id,
      number: data.number,
      attemptedAt,
      ...outcome,
      next,
    });
    if (!recorded) return { skipped: true };
    webhookAttempts.inc({ outcome: outcome.succeeded ? "delivered" : outcome.responseStatus === null ? "unreachable" : "endpoint_error" });
    if (isTest) return { succeeded: outcome.succeeded };
    if (outcome.succeeded) {
      webhookDeliveryLag.observe((Date.now() - event.createdAt.getTime()) / 1000);
      // Only a webhook that was failing when this attempt began has a run of failures to end.
      if (webhook.failingSince !== null) await markWebhookHealthy(prisma, webhook.id);
      return { succeeded: true };
    }
    const disabled = await markWebhookFailing(prisma, webhook.id, attemptedAt, settings.disableAfterMs, disableReason(settings.disableAfterMs));
    if (!disabled && next.status === "pending") await enqueueAttempt(jobs, deliveryId, data.number + 1, next.at);
    return { succeeded: false, disabled };
  };

  const send = async (url: string, body: string, signature: Record<string, string>) => {
    const started = Date.now();
    const inProcess = inProcessTarget(url);
    if (inProcess) return sendInProcess(inProcess.receive, url, body, signature);
    try {
      const response = await guardedFetch(
        url,
        {
          method: "POST",
          headers: { "content-type": "application/json", "user-agent": "Inlay-Webhooks/1", ...signature },
          body,
        },
        {
          timeoutMs: settings.timeoutMs,
          maxResponseBytes: RESPONSE_EXCERPT_CHARS * 4,
          allowHttp: deps.config.outboundAllowLoopback === true,
          allowLoopback: deps.config.outboundAllowLoopback === true,
        },
      );
      const succeeded = response.status >= 200 && response.status < 300;
      return {
        succeeded,
        durationMs: response.durationMs,
        responseStatus: response.status,
        responseExcerpt: response.body.slice(0, RESPONSE_EXCERPT_CHARS),
        error: succeeded ? null : `the endpoint answered ${response.status}`,
      };
    } catch (error) {
      // Anything but a refusal or a network failure is ours: let the job fail and run again.
      if (!(error instanceof OutboundError)) throw error;
      return { succeeded: false, durationMs: Date.now() - started, responseStatus: null, responseExcerpt: null, error: error.message };
    }
  };

  // The embedding app's own endpoint (PlatformConfig.inProcessWebhooks): the same request, handed over.
  const sendInProcess = async (
    receive: (request: Request) => Promise<Response>,
    url: string,
    body: string,
    signature: Record<string, string>,
  ) => {
    const started = Date.now();
    try {
      const request = new Request(url, {
        method: "POST",
        headers: { "content-type": "application/json", "user-agent": "Inlay-Webhooks/1", ...signature },
        body,
        signal: AbortSignal.timeout(settings.timeoutMs),
      });
      const response = await receive(request);
      const text = await response.text();
      const succeeded = response.status >= 200 && response.status < 300;
      return {
        succeeded,
        durationMs: Date.now() - started,
        responseStatus: response.status,
        responseExcerpt: text.slice(0, RESPONSE_EXCERPT_CHARS),
        error: succeeded ? null : `the endpoint answered ${response.status}`,
      };
    } catch (error) {
      // The app's handler failed: an endpoint error, retried on the schedule like any other.
      logger.warn({ err: error }, "in-process webhook delivery failed");
      return { succeeded: false, durationMs: Date.now() - started, responseStatus: null, responseExcerpt: null, error: "the in-process endpoint failed" };
    }
  };

  const sweep = async () => {
    await dispatch();
    let requeued = 0;
    for (const delivery of await findOverdueDeliveries(prisma, new Date(Date.now() - OVERDUE_MS), 1_000)) {
      const number = delivery.attempts + 1;
      const job = await jobs.inspect(ATTEMPT_JOB, jobIdForKey(ATTEMPT_JOB, `${delivery.id}:${number}`));
      // Its job is waiting or running: only late (a backlog), not lost.
      if (job && ["created", "retry", "active"].includes(job.state)) continue;
      // The job ran and failed for good, or is gone: a fresh key for the same attempt.
      await jobs.enqueue(ATTEMPT_JOB, { deliveryId: String(delivery.id), number } satisfies AttemptData, {
        key: `${delivery.id}:${number}:swept-${Date.now()}`,
      });
      requeued++;
    }
    return { requeued };
  };

  const retention = async () => {
    const before = new Date(Date.now() - (deps.config.runEventRetentionDays ?? 30) * 86_400_000);
    let removed = 0;
    for (;;) {
      const count = await deleteDispatchedEventsBefore(prisma, before, RETENTION_BATCH);
      removed += count;
      if (count < RETENTION_BATCH) return { removed };
    }
  };

  // Attempts wait on the network: several at once per process.
  await jobs.register<AttemptData>(ATTEMPT_JOB, attempt, { concurrency: 8, expireInSeconds: Math.ceil(settings.timeoutMs / 1000) + 60 });
  await jobs.register(SWEEP_JOB, sweep, { retryLimit: 0 });
  await jobs.schedule(SWEEP_JOB, "every-minute", { cron: "* * * * *", timezone: "UTC" });
  await jobs.register(RETENTION_JOB, retention, { expireInSeconds: 3600 });
  await jobs.schedule(RETENTION_JOB, "daily", { cron: "37 3 * * *", timezone: "UTC" });

  const unsubscribe = options.work ? deps.signals.subscribe(WEBHOOK_EVENTS_SIGNAL, () => void dispatch()) : () => {};
  const unsubscribeGap = options.work ? deps.signals.onGap(() => void dispatch()) : () => {};
  return {
    dispatch,
    async stop() {
      unsubscribe();
      unsubscribeGap();
      stopping = true;
      stopWaiting.abort();
      await running;
      // What waits for a slot goes to the job queue, attempted by whichever process works it next.
      for (const { deliveryId } of waiting.splice(0)) {
        await enqueueAttempt(jobs, deliveryId, 1).catch((error: unknown) => logger.warn({ err: error, deliveryId: String(deliveryId) }, "webhook attempt not handed to the queue; the sweep re-enqueues it"));
      }
      await Promise.all(inline);
    },
  };
}

function disableReason(disableAfterMs: number): string {
  const days = disableAfterMs / 86_400_000;
  const span = days >= 1 ? `${Number(days.toFixed(1))} days` : `${Math.round(disableAfterMs / 1000)} seconds`;
  return `every delivery attempt failed for ${span}`;
}
