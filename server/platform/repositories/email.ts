// Agent inboxes and email triggers: finding the owner of an address, and the log of their mail
// (platform_email_messages). The only module that touches that table.
import type { PrismaClient } from "@/server/generated/prisma/client";

/** Who an address belongs to: an agent's inbox or an email trigger, with what deciding on its mail needs. */
export type AddressOwner =
  | {
      kind: "agent";
      accountId: number;
      agentId: number;
      endUserId: number | null;
      status: string;
      allowedSenders: string[];
      address: string;
    }
  | {
      kind: "trigger";
      accountId: number;
      triggerId: number;
      taskId: number;
      endUserId: number | null;
      enabled: boolean;
      allowedSenders: string[];
      address: string;
    };

export async function findAddressOwner(prisma: PrismaClient, address: string): Promise<AddressOwner | null> {
  const agent = await prisma.platformAgent.findFirst({
    where: { emailAddress: address, emailInbox: true, status: { not: "archived" } },
    select: { id: true, accountId: true, endUserId: true, status: true, allowedSenders: true },
  });
  if (agent) {
    return { kind: "agent", accountId: agent.accountId, agentId: agent.id, endUserId: agent.endUserId, status: agent.status, allowedSenders: agent.allowedSenders, address };
  }
  const trigger = await prisma.platformTaskTrigger.findFirst({
    where: { emailAddress: address, type: "email" },
    select: { id: true, accountId: true, taskId: true, enabled: true, allowedSenders: true, task: { select: { endUserId: true } } },
  });
  if (!trigger) return null;
  return {
    kind: "trigger",
    accountId: trigger.accountId,
    triggerId: trigger.id,
    taskId: trigger.taskId,
    endUserId: trigger.task.endUserId,
    enabled: trigger.enabled,
    allowedSenders: trigger.allowedSenders,
    address,
  };
}

/** The addresses an inbox with no allowed_senders admits: the account owner's, and its end-user's. */
export async function ownerAddresses(prisma: PrismaClient, accountId: number, endUserId: number | null): Promise<string[]> {
  const account = await prisma.platformAccount.findUnique({ where: { id: accountId }, select: { email: true } });
  const endUser = endUserId === null ? null : await prisma.platformEndUser.findUnique({ where: { id: endUserId }, select: { email: true } });
  return [account?.email, endUser?.email].filter((email): email is string => Boolean(email)).map((email) => email.toLowerCase());
}

export interface EmailMessageData {
  accountId: number;
  direction: "inbound" | "outbound";
  agentId?: number | null;
  triggerId?: number | null;
  runId?: number | null;
  status: string;
  reason?: string | null;
  fromAddress: string;
  toAddress: string;
  subject?: string;
  messageId?: string | null;
  inReplyTo?: string | null;
  references?: string[];
  answersId?: number | null;
}

export const insertEmailMessage = (prisma: PrismaClient, data: EmailMessageData) => prisma.platformEmailMessage.create({ data });

export const updateEmailMessage = (prisma: PrismaClient, id: number, data: Partial<EmailMessageData>) =>
  prisma.platformEmailMessage.update({ where: { id }, data });

/** The run an earlier delivery of this message (same Message-ID, same address) started or continued. */
export const findDelivered = (prisma: PrismaClient, address: string, messageId: string) =>
  prisma.platformEmailMessage.findFirst({
    where: { direction: "inbound", toAddress: address, messageId, status: { in: ["started", "continued"] } },
    orderBy: { id: "asc" },
  });

export const findEmailMessage = (prisma: PrismaClient, id: number) => prisma.platformEmailMessage.findUnique({ where: { id } });

/**
 * The reply this platform sent from `address` whose Message-ID is one of `ids` (a later answer's
 * In-Reply-To and References), newest first: the thread the answer continues.
 */
export const findSentReply = (prisma: PrismaClient, accountId: number, address: string, ids: string[]) =>
  ids.length === 0
    ? Promise.resolve(null)
    : prisma.platformEmailMessage.findFirst({
        where: { accountId, direction: "outbound", fromAddress: address, messageId: { in: ids }, runId: { not: null } },
        orderBy: { id: "desc" },
      });

/** Claims the reply to inbound message `answersId` (unique): null when another process has it already. */
export async function claimReply(prisma: PrismaClient, data: EmailMessageData & { answersId: number }) {
  const rows = await prisma.$queryRaw<{ id: number }[]>`
    INSERT INTO platform_email_messages (account_id, direction, agent_id, trigger_id, run_id, status, from_address, to_address, subject, message_id, in_reply_to, "references", answers_id)
    VALUES (${data.accountId}, 'outbound', ${data.agentId ?? null}, ${data.triggerId ?? null}, ${data.runId ?? null}, ${data.status}, ${data.fromAddress},
            ${data.toAddress}, ${data.subject ?? ""}, ${data.messageId ?? null}, ${data.inReplyTo ?? null}, ${data.references ?? []}::text[], ${data.answersId})
    ON CONFLICT (answers_id) DO NOTHING
    RETURNING id`;
  return rows[0]?.id ?? null;
}

export const deleteEmailMessage = (prisma: PrismaClient, id: number) => prisma.platformEmailMessage.deleteMany({ where: { id } });
