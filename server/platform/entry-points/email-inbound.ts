// Mail to agent inboxes and email triggers (docs/platform-api.md, "Email"). The SMTP server
// (inbound/smtp-server.ts) asks checkRecipient at RCPT TO, so unknown addresses and senders not allowed
// are refused before any data is sent, and hands each accepted message to receiveMail, which starts a
// run (the agent's, or the task's for an email trigger) with the subject, text and attachments, or
// continues the run a reply of ours started when the mail answers it (In-Reply-To/References). Every
// message to a known address is logged in platform_email_messages. The answer goes back by mail when
// the run ends: a durable job per message (EMAIL_REPLY_JOB) waits for it. No SMTP or HTTP here.
import { randomBytes } from "node:crypto";
import { logger } from "@/lib/logger";
import type { Db } from "../repositories/db";
import { PlatformError } from "../errors";
import type { JobQueue } from "../infrastructure/job-queue";
import {
  type AddressOwner,
  claimReply,
  deleteEmailMessage,
  findAddressOwner,
  findDelivered,
  findEmailMessage,
  findSentReply,
  insertEmailMessage,
  ownerAddresses,
} from "../repositories/email";
import type { NewRunFile } from "../repositories/run-files";
import { findRunUserId } from "../repositories/runs";
import { recordEventFire } from "../repositories/task-triggers";
import { findTaskInAccount } from "../repositories/tasks";
import { findAccountAgent } from "../services/agents/agents";
import { type AnswerJob, answerText, endedRunFor, enqueueAnswer } from "../services/messaging/answer-when-ended";
import { accountActing } from "../services/account/auth";
import { bareAddress, senderAllowed } from "../services/messaging/email-addresses";
import type { Mailer } from "../services/messaging/mailer";
import { replyToRun } from "../services/runs/run-conversation";
import { acceptFiles, MAX_FILES_TOTAL_BYTES, MAX_RUN_FILES } from "../services/runs/run-files";
import { requestRun } from "../services/runs/run-target";
import type { RunServiceContext } from "../services/runs/run-context";
import { runTask } from "../services/tasks/tasks";

export const EMAIL_REPLY_JOB = "email-reply";
/** The most of a mail's text a run's message carries (as a webhook's payload); the rest is cut with a note. */
export const EMAIL_TEXT_MAX_CHARS = 64_000;

export type InboundContext = RunServiceContext & { jobs: JobQueue };

/** An SMTP refusal: the reply code and its text (with the enhanced status code). */
export interface SmtpRefusal {
  code: number;
  message: string;
}

export type RecipientDecision = { ok: true; owner: AddressOwner } | ({ ok: false } & SmtpRefusal);

/** What the SMTP server hands over of one message (mailparser's ParsedMail, reduced). */
export interface InboundMail {
  subject: string;
  text: string;
  messageId: string | null;
  inReplyTo: string | null;
  references: string[];
  /** Auto-Submitted or Precedence say a machine sent it (an auto-reply, a list): no run, no reply. */
  automatic: boolean;
  attachments: { name: string; mimeType: string; content: Uint8Array<ArrayBuffer> }[];
}

const ownerIds = (owner: AddressOwner) =>
  owner.kind === "agent" ? { agentId: owner.agentId, triggerId: null } : { agentId: null, triggerId: owner.triggerId };

async function refuse(prisma: Db, owner: AddressOwner, sender: string, reason: string, mail?: InboundMail) {
  await insertEmailMessage(prisma, {
    accountId: owner.accountId,
    direction: "inbound",
    ...ownerIds(owner),
    status: "refused",
    reason,
    fromAddress: sender,
    toAddress: owner.address,
    subject: mail?.subject ?? "",
    messageId: mail?.messageId ?? null,
    inReplyTo: mail?.inReplyTo ?? null,
    references: mail?.references ?? [],
  });
}

/**
 * RCPT TO: 550 for an address no inbox or trigger has (not logged: it names no account); for a known
 * one, 550 when it is disabled, when the sender is empty (a bounce) or not allowed, logged as refused.
 */
export async function checkRecipient(prisma: Db, envelopeSender: string, recipient: string): Promise<RecipientDecision> {
  const address = bareAddress(recipient);
  const owner = address ? await findAddressOwner(prisma, address) : null;
  if (!owner) return { ok: false, code: 550, message: `5.1.1 <${address}>: no such mailbox here` };
  const sender = bareAddress(envelopeSender);
  const disabled = owner.kind === "agent" ? owner.status !== "enabled" : !owner.enabled;
  if (disabled) {
    await refuse(prisma, owner, sender, `the ${owner.kind === "agent" ? "agent" : "email trigger"} is disabled`);
    return { ok: false, code: 550, message: `5.2.1 <${address}>: mailbox disabled` };
  }
  if (!sender) {
    await refuse(prisma, owner, sender, "no sender (a bounce or an automatic message)");
    return { ok: false, code: 550, message: "5.7.1 mail without a sender is not accepted here" };
  }
  const fallback = owner.allowedSenders.length > 0 ? [] : await ownerAddresses(prisma, owner.accountId, owner.endUserId);
  if (!senderAllowed(sender, owner.allowedSenders, fallback)) {
    await refuse(prisma, owner, sender, "sender not in allowed_senders");
    return { ok: false, code: 550, message: `5.7.1 <${sender}> may not write to <${address}>` };
  }
  return { ok: true, owner };
}

function cut(text: string): string {
  if (text.length <= EMAIL_TEXT_MAX_CHARS) return text;
  return `${text.slice(0, EMAIL_TEXT_MAX_CHARS)}\n[… email truncated: ${EMAIL_TEXT_MAX_CHARS} of ${text.length} characters shown]`;
}

/** The attachments a run can take (acceptFiles' kinds and limits), and a note for each one it cannot. */
function runFiles(mail: InboundMail): { files: NewRunFile[]; notes: string[] } {
  const files: NewRunFile[] = [];
  const notes: string[] = [];
  let total = 0;
  for (const attachment of mail.attachments) {
    const label = `${attachment.name} (${attachment.mimeType}, ${attachment.content.byteLength} bytes)`;
    if (files.length >= MAX_RUN_FILES) {
      notes.push(`${label}: more than ${MAX_RUN_FILES} attachments`);
      continue;
    }
    try {
      // One at a time, so one file the model cannot read leaves the others; the total is counted here.
      const [file] = acceptFiles([{ name: attachment.name, mimeType: attachment.mimeType, bytes: attachment.content }]);
      if (total + file!.content.byteLength > MAX_FILES_TOTAL_BYTES) {
        notes.push(`${label}: over the ${MAX_FILES_TOTAL_BYTES} bytes a run's files may total`);
        continue;
      }
      total += file!.content.byteLength;
      files.push(file!);
    } catch (error) {
      notes.push(`${label}: ${error instanceof PlatformError ? error.message.replace(/^files: /, "") : "not readable"}`);
    }
  }
  return { files, notes };
}

/** The mail as a run's message shows it: sender, subject, text, then what happened to its attachments. */
export function emailMessageText(sender: string, mail: InboundMail, files: NewRunFile[], notes: string[]): string {
  const parts = [`From: ${sender}\nSubject: ${mail.subject || "(no subject)"}`, cut(mail.text.trim()) || "(no text)"];
  if (files.length > 0) parts.push(`Attachments: ${files.map((file) => `${file.name} (${file.mimeType})`).join(", ")}`);
  if (notes.length > 0) parts.push(`Attachments not passed on:\n${notes.map((note) => `- ${note}`).join("\n")}`);
  return parts.join("\n\n");
}

/** The thread ids of a mail: In-Reply-To first, then References, newest last as sent. */
const threadIds = (mail: InboundMail) => [...new Set([mail.inReplyTo, ...mail.references].filter((id): id is string => Boolean(id)))];

/**
 * One accepted message for one of its recipients: starts (or continues) the run and logs it, and
 * enqueues the reply. A refusal by admission (balance, caps) is logged and thrown as the spec's error.
 */
export async function receiveMail(ctx: InboundContext, envelopeSender: string, owner: AddressOwner, mail: InboundMail): Promise<{ runId: number | null }> {
  const sender = bareAddress(envelopeSender);
  const logged = {
    accountId: owner.accountId,
    direction: "inbound" as const,
    ...ownerIds(owner),
    fromAddress: sender,
    toAddress: owner.address,
    subject: mail.subject,
    messageId: mail.messageId,
    inReplyTo: mail.inReplyTo,
    references: mail.references,
  };
  // A message delivered again (an MTA's retry after a lost answer) does not start a second run.
  const delivered = mail.messageId ? await findDelivered(ctx.prisma, owner.address, mail.messageId) : null;
  if (delivered) return { runId: delivered.runId };
  if (mail.automatic) {
    await insertEmailMessage(ctx.prisma, { ...logged, status: "ignored", reason: "sent automatically (Auto-Submitted or Precedence)" });
    return { runId: null };
  }
  const { files, notes } = runFiles(mail);
  const text = emailMessageText(sender, mail, files, notes);
  let started: { runId: number; continued: boolean };
  try {
    started = await startOrContinue(ctx, owner, text, files, threadIds(mail));
  } catch (error) {
    if (error instanceof PlatformError) {
      await insertEmailMessage(ctx.prisma, { ...logged, status: "refused", reason: `${error.type}: ${error.message}` });
      if (owner.kind === "trigger") await recordEventFire(ctx.prisma, owner.triggerId, { outcome: "refused", reason: `${error.type}: ${error.message}` });
    }
    throw error;
  }
  const row = await insertEmailMessage(ctx.prisma, { ...logged, status: started.continued ? "continued" : "started", runId: started.runId });
  if (owner.kind === "trigger") await recordEventFire(ctx.prisma, owner.triggerId, { outcome: "started", runId: started.runId });
  await enqueueAnswer(ctx.jobs, EMAIL_REPLY_JOB, row.id);
  return { runId: started.runId };
}

async function startOrContinue(ctx: InboundContext, owner: AddressOwner, text: string, files: NewRunFile[], thread: string[]) {
  const auth = accountActing(owner.accountId);
  // An answer to a reply of ours continues that run, as POST /runs/{id}/reply would, when it can take
  // a reply (finished, with its conversation kept); otherwise the answer starts a run of its own.
  const earlier = await findSentReply(ctx.prisma, owner.accountId, owner.address, thread);
  if (earlier?.runId) {
    const userId = await findRunUserId(ctx.prisma, earlier.runId);
    if (userId !== undefined) {
      const scope = { accountId: owner.accountId, endUserId: owner.endUserId, userId };
      try {
        await replyToRun(ctx, scope, earlier.runId, { message: text }, files);
        return { runId: earlier.runId, continued: true };
      } catch (error) {
        if (!(error instanceof PlatformError && error.type === "conflict_error")) throw error;
      }
    }
  }
  if (owner.kind === "agent") {
    const agent = await findAccountAgent(ctx, owner.accountId, owner.agentId);
    if (!agent) throw new PlatformError({ type: "not_found", message: `agent ${owner.agentId} not found` });
    const { run } = await requestRun(
      ctx,
      auth,
      agent.endUser?.externalId ?? undefined,
      { message: text, teammate_id: agent.id, stream: false, metadata: { source: "email" } },
      files,
    );
    return { runId: run.id, continued: false };
  }
  const task = await findTaskInAccount(ctx.prisma, owner.accountId, owner.taskId);
  if (!task) throw new PlatformError({ type: "not_found", message: `task ${owner.taskId} not found` });
  const { run } = await runTask(ctx, auth, task, { stream: false, metadata: { source: "email" } }, undefined, { email: text, attachments: files });
  return { runId: run.id, continued: false };
}

/**
 * A message fetchmail took from an agent's outside mailbox (jobs/fetchmail-polls.ts): the agent's run,
 * with the same text as an inbox's mail. No reply by mail: the mailbox is the user's, not an address
 * this platform may send from; the answer is the run's. Throws PlatformError when admission refuses it.
 */
export async function startFetchedMailRun(ctx: RunServiceContext, accountId: number, agentId: number, sender: string, mail: InboundMail): Promise<number> {
  const agent = await findAccountAgent(ctx, accountId, agentId);
  if (!agent) throw new PlatformError({ type: "not_found", message: `agent ${agentId} not found` });
  const { files, notes } = runFiles(mail);
  const { run } = await requestRun(
    ctx,
    accountActing(accountId),
    agent.endUser?.externalId ?? undefined,
    { message: emailMessageText(sender || "(unknown sender)", mail, files, notes), teammate_id: agent.id, stream: false, metadata: { source: "fetchmail" } },
    files,
  );
  return run.id;
}

// ---------------------------------------------------------------------------------------------
// The reply by mail, once the run has ended

const replySubject = (subject: string) => (/^re:/i.test(subject.trim()) ? subject.trim() : `Re: ${subject.trim() || "(no subject)"}`);

export interface EmailReplyDeps {
  prisma: Db;
  jobs: JobQueue;
  mailer: Mailer;
  /** The domain of the replies' Message-IDs. */
  domain: string;
}

/**
 * The reply job: when the message's run has ended (completed or failed; a cancelled run answers
 * nothing), mails its answer from the inbox's address to the sender, with In-Reply-To and References,
 * once (the reply row is claimed first); while it runs or waits for approval, looks again later.
 */
export async function registerEmailReplies(deps: EmailReplyDeps): Promise<void> {
  const { prisma, jobs } = deps;
  const reply = async ({ data }: { data: AnswerJob }) => {
    const inbound = await findEmailMessage(prisma, data.inboundId);
    if (!inbound) return { skipped: "no message" };
    const ended = await endedRunFor(prisma, jobs, EMAIL_REPLY_JOB, inbound, data.attempt);
    if ("result" in ended) return ended.result;
    const { run } = ended;
    const messageId = `<reply.${inbound.id}.${randomBytes(8).toString("hex")}@${deps.domain}>`;
    const references = [...inbound.references, ...(inbound.messageId ? [inbound.messageId] : [])];
    const subject = replySubject(inbound.subject);
    const claimed = await claimReply(prisma, {
      accountId: inbound.accountId,
      direction: "outbound",
      agentId: inbound.agentId,
      triggerId: inbound.triggerId,
      runId: inbound.runId,
      status: "sent",
      fromAddress: inbound.toAddress,
      toAddress: inbound.fromAddress,
      subject,
      messageId,
      inReplyTo: inbound.messageId,
      references,
      answersId: inbound.id,
    });
    if (claimed === null) return { skipped: "replied already" };
    try {
      await deps.mailer.send(prisma, {
        accountId: inbound.accountId,
        from: inbound.toAddress,
        to: inbound.fromAddress,
        subject,
        text: answerText(run, { withError: true }),
        kind: "email_reply",
        messageId,
        inReplyTo: inbound.messageId ?? undefined,
        references,
      });
    } catch (error) {
      // Not sent: give the claim back, so the job's retry sends it.
      await deleteEmailMessage(prisma, claimed);
      logger.warn({ err: error, inboundId: inbound.id }, "email reply not sent");
      throw error;
    }
    return { sent: messageId };
  };
  await jobs.register<AnswerJob>(EMAIL_REPLY_JOB, reply, { concurrency: 2, expireInSeconds: 120 });
}
