// The framework's outgoing mail (invites). The default mailer records each message in framework_mail
// and logs its links, so a self-hosted install works without a mail server; a real transport
// implements the same interface.
import { logger } from "@/lib/logger";
import type { Db } from "@/server/shared/db";
import { insertMail } from "./mail-repository";

export interface FrameworkMailMessage {
  tenantId: string | null;
  to: string;
  subject: string;
  text: string;
  kind: string;
  /** Links in the message, logged so a developer can follow them. */
  links?: string[];
}

export interface FrameworkMailer {
  send(prisma: Db, mail: FrameworkMailMessage): Promise<void>;
}

export const recordingMailer: FrameworkMailer = {
  async send(prisma, { links, ...mail }) {
    await insertMail(prisma, mail);
    logger.info({ to: mail.to, kind: mail.kind, links }, `mail recorded: ${mail.subject}`);
  },
};
