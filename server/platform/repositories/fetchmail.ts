// fetchmail: the outside IMAP mailbox an agent polls and the messages taken from it
// (platform_fetchmail_mailboxes, platform_fetchmail_messages). The only module that touches them.
import type { Db } from "./db";

export interface MailboxData {
  agentId: number;
  accountId: number;
  host: string;
  port: number;
  tls: boolean;
  username: string;
  passwordSealed: string;
  mailbox: string;
  uidValidity: bigint;
  lastUid: bigint;
  nextPollAt: Date;
}

export const findMailbox = (prisma: Db, agentId: number) => prisma.platformFetchmailMailbox.findUnique({ where: { agentId } });

/** New settings, or settings replacing the agent's earlier ones (another revision: queued polls of those do nothing). */
export const saveMailbox = (prisma: Db, data: MailboxData) =>
  prisma.platformFetchmailMailbox.upsert({
    where: { agentId: data.agentId },
    create: data,
    update: { ...data, revision: { increment: 1 }, lastPolledAt: null, lastError: null },
  });

export const deleteMailbox = (prisma: Db, agentId: number) => prisma.platformFetchmailMailbox.deleteMany({ where: { agentId } });

/** The mailbox with what a poll needs of its agent. */
export const findMailboxForPoll = (prisma: Db, agentId: number) =>
  prisma.platformFetchmailMailbox.findUnique({
    where: { agentId },
    include: { agent: { select: { id: true, accountId: true, status: true, fetchmail: true, allowedSenders: true } } },
  });

export type PollMailbox = NonNullable<Awaited<ReturnType<typeof findMailboxForPoll>>>;

/** Moves the next poll on, unless the settings changed (or went) meanwhile. */
export async function advanceMailbox(prisma: Db, agentId: number, revision: number, nextPollAt: Date): Promise<boolean> {
  const { count } = await prisma.platformFetchmailMailbox.updateMany({ where: { agentId, revision }, data: { nextPollAt } });
  return count > 0;
}

/** The messages up to `uid` were taken; never moves back (two polls may overlap). */
export async function moveCursor(prisma: Db, agentId: number, revision: number, uidValidity: bigint, uid: number): Promise<void> {
  await prisma.$executeRaw`
    UPDATE platform_fetchmail_mailboxes SET last_uid = GREATEST(last_uid, ${BigInt(uid)}), updated_at = now()
    WHERE agent_id = ${agentId} AND revision = ${revision} AND uid_validity = ${uidValidity}`;
}

/** The server renumbered the mailbox (another UIDVALIDITY): start again from what is there now. */
export async function resetCursor(prisma: Db, agentId: number, revision: number, uidValidity: bigint, lastUid: bigint): Promise<void> {
  await prisma.platformFetchmailMailbox.updateMany({ where: { agentId, revision }, data: { uidValidity, lastUid } });
}

export async function recordPoll(prisma: Db, agentId: number, revision: number, at: Date, error: string | null): Promise<void> {
  await prisma.platformFetchmailMailbox.updateMany({ where: { agentId, revision }, data: { lastPolledAt: at, lastError: error } });
}

/** Enabled mailboxes whose poll is overdue (their job lost): the sweep's work. */
export const findOverdueMailboxes = (prisma: Db, before: Date, limit: number) =>
  prisma.platformFetchmailMailbox.findMany({
    where: { nextPollAt: { lt: before }, agent: { fetchmail: true, status: { not: "archived" } } },
    select: { agentId: true, revision: true, nextPollAt: true },
    orderBy: { nextPollAt: "asc" },
    take: limit,
  });

export interface MessageClaim {
  accountId: number;
  agentId: number;
  uidValidity: bigint;
  uid: number;
  messageId: string | null;
  fromAddress: string;
  subject: string;
}

/**
 * Claims one message before its run starts: null when it was taken already (the same UID, or the same
 * Message-ID under another UID), by this poll's twin or an earlier one.
 */
export async function claimMessage(prisma: Db, claim: MessageClaim): Promise<number | null> {
  const rows = await prisma.$queryRaw<{ id: number }[]>`
    INSERT INTO platform_fetchmail_messages (account_id, agent_id, uid_validity, uid, message_id, status, from_address, subject)
    VALUES (${claim.accountId}, ${claim.agentId}, ${claim.uidValidity}, ${BigInt(claim.uid)}, ${claim.messageId}, 'starting', ${claim.fromAddress}, ${claim.subject})
    ON CONFLICT DO NOTHING
    RETURNING id`;
  return rows[0]?.id ?? null;
}

export async function settleMessage(prisma: Db, id: number, outcome: { status: "started" | "refused" | "ignored"; runId?: number; reason?: string }) {
  await prisma.platformFetchmailMessage.update({ where: { id }, data: { status: outcome.status, runId: outcome.runId ?? null, reason: outcome.reason ?? null } });
}

/** Gives a claim back (our own failure, not the message's): the job's retry takes it again. */
export const releaseMessage = (prisma: Db, id: number) => prisma.platformFetchmailMessage.deleteMany({ where: { id, status: "starting" } });
