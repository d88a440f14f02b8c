// fetchmail: an agent polls an outside IMAP mailbox (docs/platform-api.md, "Email"), as app-event
// triggers poll their app (app-trigger-polls.ts):
//
//   poll    one job per (agent, settings revision, poll time): reads the messages above the stored UID
//           cursor and starts the agent's run for each, then moves the next poll on by the interval
//           from now (so a platform that was down polls once when it is back, not once per missed
//           interval) and enqueues it. Settings replaced or removed make a queued poll do nothing.
//   sweep   every minute: re-enqueues a poll long overdue (a process killed between moving
//           next_poll_at and enqueueing).
//
// A message is one run at most: it is claimed (unique by UIDVALIDITY+UID and by Message-ID) before
// its run starts, as a schedule's fire is, so two polls at once, or a poll retried after its process
// died, never start it twice; a process killed between the claim and the run leaves it claimed, not run.
import { logger } from "@/lib/logger";
import type { Db } from "../repositories/db";
import type { PlatformConfig } from "../platform-config";
import { PlatformError } from "../errors";
import { toInboundMail } from "../inbound/mail-parse";
import type { InboundMail } from "../entry-points/email-inbound";
import { bareAddress, senderAllowed } from "../services/messaging/email-addresses";
import { openSecret } from "../services/sealed-secrets";
import { type FetchedMessage, MailboxError, withMailbox } from "../outbound/imap-mailbox";
import {
  advanceMailbox,
  claimMessage,
  findMailboxForPoll,
  findOverdueMailboxes,
  moveCursor,
  type PollMailbox,
  recordPoll,
  releaseMessage,
  resetCursor,
  settleMessage,
} from "../repositories/fetchmail";
import { type JobQueue, jobIdForKey } from "../infrastructure/job-queue";
import { FETCHMAIL_POLL_JOB, fetchmailPollSeconds, mailboxOptions, type MailboxPollData, mailboxPollKey, enqueueMailboxPoll } from "../services/messaging/fetchmail";

export const FETCHMAIL_SWEEP_JOB = "fetchmail-poll-sweep";
/** Messages one poll takes at most; the rest wait for the next poll (the cursor stops before them). */
export const MAX_MESSAGES_PER_POLL = 10;
/** A message larger than this is not downloaded (recorded as refused): an inbox's SMTP cap. */
export const DEFAULT_FETCHMAIL_MAX_BYTES = 10 * 1024 * 1024;



export const fetchmailMaxBytes = (config: PlatformConfig) => config.email?.smtp?.maxBytes ?? DEFAULT_FETCHMAIL_MAX_BYTES;


/** Starts the agent's run for one message; the run's id. Throws PlatformError when admission refuses it. */
export type StartFetchedRun = (mailbox: PollMailbox, sender: string, mail: InboundMail) => Promise<number>;

export interface FetchmailPollDeps {
  prisma: Db;
  config: PlatformConfig;
  jobs: JobQueue;
  startRun: StartFetchedRun;
}

export type MailboxPollResult = { error: string } | { renumbered: true } | { taken: number; started: number };

/** Reads the mailbox once and starts a run for each message not taken before. */
export async function pollMailbox(deps: FetchmailPollDeps, box: PollMailbox, now = new Date()): Promise<MailboxPollResult> {
  const { prisma, config } = deps;
  const settings = { host: box.host, port: box.port, tls: box.tls, username: box.username, password: openSecret(config, box.passwordSealed).value, mailbox: box.mailbox };
  try {
    const result = await withMailbox(settings, mailboxOptions(config), async (mailbox): Promise<MailboxPollResult> => {
      if (mailbox.uidValidity !== box.uidValidity) {
        // The server renumbered the mailbox: the old cursor means nothing now, and taking every
        // message there again would start a run for each; start from what arrives next.
        await resetCursor(prisma, box.agentId, box.revision, mailbox.uidValidity, BigInt(mailbox.uidNext - 1));
        logger.warn({ agentId: box.agentId }, "fetchmail: the mailbox's UIDVALIDITY changed; starting again from its next message");
        return { renumbered: true };
      }
      const messages = await mailbox.messagesAfter(Number(box.lastUid), MAX_MESSAGES_PER_POLL, fetchmailMaxBytes(config));
      let started = 0;
      for (const message of messages) {
        if (await takeMessage(deps, box, mailbox.uidValidity, message)) started++;
        await moveCursor(prisma, box.agentId, box.revision, mailbox.uidValidity, message.uid);
      }
      return { taken: messages.length, started };
    });
    await recordPoll(prisma, box.agentId, box.revision, now, null);
    return result;
  } catch (error) {
    if (!(error instanceof MailboxError)) throw error;
    logger.warn({ agentId: box.agentId, reason: error.reason, error: error.message }, "fetchmail: the mailbox could not be read");
    await recordPoll(prisma, box.agentId, box.revision, now, error.message);
    return { error: error.message };
  }
}

/** One message: claimed, then its run started (or refused, or ignored, with the reason). True when a run started. */
async function takeMessage(deps: FetchmailPollDeps, box: PollMailbox, uidValidity: bigint, message: FetchedMessage): Promise<boolean> {
  const { prisma } = deps;
  const base = { accountId: box.accountId, agentId: box.agentId, uidValidity, uid: message.uid };
  if (!message.source) {
    const claim = await claimMessage(prisma, { ...base, messageId: null, fromAddress: "", subject: "" });
    if (claim !== null) await settleMessage(prisma, claim, { status: "refused", reason: `larger than ${fetchmailMaxBytes(deps.config)} bytes (${message.size})` });
    return false;
  }
  // mailparser is loaded at the first message fetched, not at start.
  const { simpleParser } = await import("mailparser");
  const parsed = await simpleParser(message.source);
  const mail = toInboundMail(parsed);
  const sender = bareAddress(parsed.from?.value[0]?.address ?? "");
  const claim = await claimMessage(prisma, { ...base, messageId: mail.messageId, fromAddress: sender, subject: mail.subject });
  if (claim === null) return false;
  if (mail.automatic) {
    await settleMessage(prisma, claim, { status: "ignored", reason: "sent automatically (Auto-Submitted or Precedence)" });
    return false;
  }
  if (box.agent.allowedSenders.length > 0 && !senderAllowed(sender, box.agent.allowedSenders, [])) {
    await settleMessage(prisma, claim, { status: "refused", reason: "sender not in allowed_senders" });
    return false;
  }
  try {
    const runId = await deps.startRun(box, sender, mail);
    await settleMessage(prisma, claim, { status: "started", runId });
    return true;
  } catch (error) {
    // A cap, the balance or a rate limit: recorded with its reason, and not tried again.
    if (error instanceof PlatformError) {
      await settleMessage(prisma, claim, { status: "refused", reason: `${error.type}: ${error.message}` });
      return false;
    }
    // Ours: give the message back so the job's retry takes it.
    await releaseMessage(prisma, claim);
    throw error;
  }
}

export async function registerFetchmailPolls(deps: FetchmailPollDeps): Promise<void> {
  const { prisma, jobs } = deps;
  const intervalMs = fetchmailPollSeconds(deps.config) * 1000;

  const poll = async ({ data }: { data: MailboxPollData }) => {
    const box = await findMailboxForPoll(prisma, data.agentId);
    if (!box || box.revision !== data.revision || !box.agent.fetchmail || box.agent.status === "archived") return { stale: true };
    // A disabled agent's mailbox is left alone (the cursor stays): its mail is taken once it is enabled again.
    const result = box.agent.status === "enabled" ? await pollMailbox(deps, box) : { skipped: "the agent is disabled" };
    const next = new Date(Date.now() + intervalMs);
    if (await advanceMailbox(prisma, box.agentId, box.revision, next)) {
      await enqueueMailboxPoll(jobs, { agentId: box.agentId, revision: box.revision, nextPollAt: next });
    }
    return result;
  };

  const sweep = async () => {
    let requeued = 0;
    const overdue = new Date(Date.now() - 2 * intervalMs - 60_000);
    for (const box of await findOverdueMailboxes(prisma, overdue, 1_000)) {
      const data: MailboxPollData = { agentId: box.agentId, revision: box.revision, at: box.nextPollAt.toISOString() };
      const job = await jobs.inspect(FETCHMAIL_POLL_JOB, jobIdForKey(FETCHMAIL_POLL_JOB, mailboxPollKey(data)));
      if (job && ["created", "retry", "active"].includes(job.state)) continue;
      await jobs.enqueue(FETCHMAIL_POLL_JOB, data, { key: `${mailboxPollKey(data)}:swept-${Date.now()}` });
      requeued++;
    }
    if (requeued > 0) logger.warn({ requeued }, "fetchmail polls re-enqueued by the sweep");
    return { requeued };
  };

  await jobs.register<MailboxPollData>(FETCHMAIL_POLL_JOB, poll, { concurrency: 4, expireInSeconds: 300 });
  await jobs.register(FETCHMAIL_SWEEP_JOB, sweep, { retryLimit: 0 });
  await jobs.schedule(FETCHMAIL_SWEEP_JOB, "every-minute", { cron: "* * * * *", timezone: "UTC" });
}
