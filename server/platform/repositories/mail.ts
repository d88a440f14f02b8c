// The recording mailer's store (services/messaging/mailer.ts): every outgoing message, kept for the developer.
import type { PrismaClient } from "@/server/generated/prisma/client";

export interface MailRecord {
  accountId: number | null;
  to: string;
  subject: string;
  text: string;
  kind: string;
  from?: string | null;
  messageId?: string | null;
  inReplyTo?: string | null;
  references?: string[];
}

export async function insertMail(prisma: PrismaClient, mail: MailRecord): Promise<void> {
  await prisma.platformMail.create({ data: mail });
}
