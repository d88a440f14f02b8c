// The jobs of payments (services/billing/payments.ts): the auto-reload charge and the low-balance alert, one
// per crossing of a threshold (the enqueue's key is the crossing, so instances and retries make one).
import type { Db, JsonObject } from "../repositories/db";
import type { PlatformConfig } from "../platform-config";
import { findAccountContact, findBillingSettings } from "../repositories/payments";
import { insertWebhookEvent } from "../repositories/webhook-events";
import { usdDisplay } from "../services/billing/billing";
import type { Mailer } from "../services/messaging/mailer";
import { AUTO_RELOAD_JOB, LOW_BALANCE_JOB, runAutoReload } from "../services/billing/payments";
import type { JobQueue } from "../infrastructure/job-queue";

export const LOW_BALANCE_EVENT = "billing.low_balance";

interface CrossingData {
  accountId: number;
  crossing: number;
}

export async function registerPaymentJobs(deps: { prisma: Db; config: PlatformConfig; jobs: JobQueue; mailer: Mailer }) {
  const { prisma, config, jobs, mailer } = deps;
  await jobs.register<CrossingData>(AUTO_RELOAD_JOB, (job) => runAutoReload({ prisma, config, jobs }, job.data.accountId, job.data.crossing), {
    retryLimit: 3,
    retryDelaySeconds: 30,
    retryBackoff: true,
  });
  await jobs.register<CrossingData>(LOW_BALANCE_JOB, (job) => sendLowBalanceAlert({ prisma, config, mailer }, job.data), {
    retryLimit: 3,
    retryDelaySeconds: 30,
    retryBackoff: true,
  });
}

/** The billing.low_balance webhook payload (packages/core/src/schemas/webhooks.ts LowBalanceEvent, less the delivery's timestamp). */
export function lowBalancePayload(account: { id: number; balanceMicros: bigint }, thresholdCents: number, crossing: number) {
  return {
    type: LOW_BALANCE_EVENT,
    account_id: account.id,
    balance_micros: Number(account.balanceMicros),
    balance_usd: usdDisplay(account.balanceMicros),
    low_balance_threshold_cents: thresholdCents,
    crossing,
    user_id: null,
  } satisfies JsonObject;
}

/** Mails the account's owner and writes a billing.low_balance webhook event (account level). */
export async function sendLowBalanceAlert(deps: { prisma: Db; config: PlatformConfig; mailer: Mailer }, data: CrossingData) {
  const [account, settings] = await Promise.all([findAccountContact(deps.prisma, data.accountId), findBillingSettings(deps.prisma, data.accountId)]);
  if (!account || settings?.lowBalanceThresholdCents == null) return "gone";
  const threshold = `$${usdDisplay(BigInt(settings.lowBalanceThresholdCents) * 10_000n)}`;
  const balance = `$${usdDisplay(account.balanceMicros)}`;
  const topup = `${deps.config.publicBaseUrl}/billing/topup`;
  const payload = lowBalancePayload({ id: account.id, balanceMicros: account.balanceMicros }, settings.lowBalanceThresholdCents, data.crossing);
  await insertWebhookEvent(deps.prisma, { accountId: account.id, endUserId: null, runId: null, type: LOW_BALANCE_EVENT, payload });
  await deps.mailer.send(deps.prisma, {
    accountId: account.id,
    to: account.email,
    kind: "low_balance",
    subject: `Your Inlay balance is below ${threshold}`,
    text: `Your balance is ${balance}, below the ${threshold} you set for this alert.\n\nTop up with POST ${topup}, or turn on auto-reload.\n`,
  });
  return "sent";
}
