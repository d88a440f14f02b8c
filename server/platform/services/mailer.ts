// Outgoing mail. The default mailer records every message in platform_mail and logs its links, so
// a self-hosted install works with no mail server; a real transport implements the same interface.
import type { PrismaClient } from "@/server/generated/prisma/client";
import { logger } from "@/lib/logger";
import { insertMail } from "../repositories/mail";

export interface OutgoingMail {
  accountId: number | null;
  to: string;
  subject: string;
  text: string;
  kind: string;
  /** Links in the message, logged by the recording mailer so a developer can follow them. */
  links?: string[];
}

export interface Mailer {
  send(prisma: PrismaClient, mail: OutgoingMail): Promise<void>;
}

export const recordingMailer: Mailer = {
  async send(prisma, mail) {
    await insertMail(prisma, { accountId: mail.accountId, to: mail.to, subject: mail.subject, text: mail.text, kind: mail.kind });
    logger.info({ to: mail.to, kind: mail.kind, links: mail.links }, `mail recorded: ${mail.subject}`);
  },
};
