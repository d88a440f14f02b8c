// fetchmail (POST/DELETE /agents/{id}/fetchmail; docs/platform-api.md, "Email"): an agent polls an
// outside IMAP mailbox, and each new message there starts its run (jobs/fetchmail-polls.ts). Turning it
// on logs in once, so wrong credentials or an unreachable server answer at once, and records where the
// mailbox is (UIDVALIDITY and the next UID): what is there already is not taken, only what arrives.
import type { z } from "zod";
import { FETCHMAIL_MAILBOX_FIELDS, type FetchmailAgent, type FetchmailBody } from "@inlay/core/schemas/agents";
import { PlatformError } from "../../errors";
import type { JobQueue } from "../../infrastructure/job-queue";
import { MailboxError, type MailboxErrorReason, type MailboxOptions, withMailbox } from "../../outbound/imap-mailbox";
import { deleteMailbox, findMailbox, saveMailbox } from "../../repositories/fetchmail";
import { type AgentServiceContext, loadAgent, toAgent, updateAgent } from "../agents/agents";
import type { Scope } from "../scope";
import { sealSecret } from "../sealed-secrets";

export type FetchmailContext = AgentServiceContext & { jobs: JobQueue };
type FetchmailAgentOut = z.infer<typeof FetchmailAgent>;
type MailboxRow = NonNullable<Awaited<ReturnType<typeof findMailbox>>>;

// The field a mailbox failure is about, for the error's details.
const fieldOf: Record<MailboxErrorReason, string> = {
  blocked_address: "host",
  connection_failed: "host",
  timeout: "host",
  login_failed: "password",
  no_mailbox: "mailbox",
  server_error: "host",
};

const toMailbox = (row: MailboxRow) => ({
  host: row.host,
  port: row.port,
  tls: row.tls,
  username: row.username,
  mailbox: row.mailbox,
  last_polled_at: row.lastPolledAt?.toISOString() ?? null,
  last_error: row.lastError,
});

/**
 * Turns fetchmail on (or replaces its mailbox) after logging in once; the first poll follows one interval
 * later. The spec's form names no mailbox (user_id alone): fetchmail goes on with the mailbox the agent
 * has, where it left off; an agent with none is a 422 naming the fields that would give it one.
 */
export async function enableFetchmail(ctx: FetchmailContext, scope: Scope, id: number, input: z.infer<typeof FetchmailBody>): Promise<FetchmailAgentOut> {
  const row = await loadAgent(ctx, scope, id);
  const { host, username, password } = input;
  if (host === undefined || username === undefined || password === undefined) {
    const box = await findMailbox(ctx.prisma, row.id);
    if (!box) {
      throw new PlatformError({
        type: "validation_error",
        errorCode: "fetchmail_mailbox_required",
        message: `fetchmail: agent ${row.id} has no mailbox to poll yet: give ${FETCHMAIL_MAILBOX_FIELDS.join(", ")} (and port, tls, mailbox if not the defaults)`,
        details: { fields: FETCHMAIL_MAILBOX_FIELDS.map((field) => ({ field, message: "is required: the agent has no mailbox configured" })) },
      });
    }
    const agent = row.fetchmail ? row : await updateAgent(ctx, row, { fetchmail: true });
    await enqueueMailboxPoll(ctx.jobs, box);
    return { ...toAgent(agent), fetchmail_mailbox: toMailbox(box) };
  }
  const settings = { host, port: input.port ?? (input.tls ? 993 : 143), tls: input.tls, username, password, mailbox: input.mailbox };
  let opened: { uidValidity: bigint; uidNext: number };
  try {
    opened = await withMailbox(settings, mailboxOptions(ctx.config), async (mailbox) => ({ uidValidity: mailbox.uidValidity, uidNext: mailbox.uidNext }));
  } catch (error) {
    if (!(error instanceof MailboxError)) throw error;
    throw new PlatformError({
      type: "validation_error",
      errorCode: `fetchmail_${error.reason}`,
      message: `fetchmail: ${error.message}`,
      details: { field: fieldOf[error.reason] },
    });
  }
  const box = await saveMailbox(ctx.prisma, {
    agentId: row.id,
    accountId: row.accountId,
    host: settings.host,
    port: settings.port,
    tls: settings.tls,
    username: settings.username,
    passwordSealed: sealSecret(ctx.config, settings.password),
    mailbox: settings.mailbox,
    uidValidity: opened.uidValidity,
    lastUid: BigInt(Math.max(opened.uidNext - 1, 0)),
    nextPollAt: new Date(Date.now() + fetchmailPollSeconds(ctx.config) * 1000),
  });
  const agent = row.fetchmail ? row : await updateAgent(ctx, row, { fetchmail: true });
  await enqueueMailboxPoll(ctx.jobs, box);
  return { ...toAgent(agent), fetchmail_mailbox: toMailbox(box) };
}

/** Turns fetchmail off: the mailbox's settings (and its sealed password) are deleted; queued polls do nothing. */
export async function disableFetchmail(ctx: FetchmailContext, scope: Scope, id: number): Promise<FetchmailAgentOut> {
  const row = await loadAgent(ctx, scope, id);
  await deleteMailbox(ctx.prisma, row.id);
  const agent = row.fetchmail ? await updateAgent(ctx, row, { fetchmail: false }) : row;
  return { ...toAgent(agent), fetchmail_mailbox: null };
}

export const FETCHMAIL_POLL_JOB = "fetchmail-poll";
export const DEFAULT_FETCHMAIL_POLL_SECONDS = 60;
export interface MailboxPollData {
  agentId: number;
  revision: number;
  at: string;
}
export const mailboxPollKey = (data: MailboxPollData) => `${data.agentId}:${data.revision}:${data.at}`;
export const fetchmailPollSeconds = (config: { email?: { fetchmailPollSeconds?: number } }) => config.email?.fetchmailPollSeconds ?? DEFAULT_FETCHMAIL_POLL_SECONDS;
export const mailboxOptions = (config: { outboundAllowLoopback?: boolean }): MailboxOptions => ({ allowLoopback: config.outboundAllowLoopback ?? false });
/** Enqueues the mailbox's next poll, once whatever the callers. */
export function enqueueMailboxPoll(jobs: JobQueue, mailbox: { agentId: number; revision: number; nextPollAt: Date }) {
  const data: MailboxPollData = { agentId: mailbox.agentId, revision: mailbox.revision, at: mailbox.nextPollAt.toISOString() };
  return jobs.enqueue(FETCHMAIL_POLL_JOB, data, { key: mailboxPollKey(data), startAfter: mailbox.nextPollAt, retryLimit: 3, retryDelaySeconds: 5, retryBackoff: true });
}
