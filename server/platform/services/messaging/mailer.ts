// Outgoing mail. The default mailer records every message in platform_mail and logs its links, so
// a self-hosted install works with no mail server; the SMTP mailer also sends each one through a relay
// (INLAY_MAIL_SMTP_URL), after recording it. A message's secrets (verification and invite tokens,
// stored hashed) travel whole only to the recipient: the record and the log show their first characters.
import type { Transporter } from "nodemailer";
import type { Db } from "../../repositories/db";
import { logger } from "@/lib/logger";
import { insertMail } from "../../repositories/mail";

export interface OutgoingMail {
  accountId: number | null;
  to: string;
  subject: string;
  text: string;
  kind: string;
  /** Links in the message, logged by the recording mailer (with their secrets masked). */
  links?: string[];
  /** Values in the text and links that only the recipient may see whole (single-use tokens). */
  secrets?: string[];
  /** The sender; the mailer's default (no-reply@<email domain>) when omitted. */
  from?: string;
  /** Thread headers, for replies (agent inboxes): Message-ID, In-Reply-To and References, with their <>. */
  messageId?: string;
  inReplyTo?: string;
  references?: string[];
}

export interface Mailer {
  send(prisma: Db, mail: OutgoingMail): Promise<void>;
}

/** `text` with each secret cut to its first characters, as records and logs show it. */
export function maskSecrets(text: string, secrets: string[] = []): string {
  return secrets.reduce((masked, secret) => masked.replaceAll(secret, `${secret.slice(0, 6)}…`), text);
}

async function record(prisma: Db, mail: OutgoingMail) {
  await insertMail(prisma, {
    accountId: mail.accountId,
    to: mail.to,
    subject: mail.subject,
    text: maskSecrets(mail.text, mail.secrets),
    kind: mail.kind,
    from: mail.from ?? null,
    messageId: mail.messageId ?? null,
    inReplyTo: mail.inReplyTo ?? null,
    references: mail.references ?? [],
  });
}

export const recordingMailer: Mailer = {
  async send(prisma, mail) {
    await record(prisma, mail);
    const links = mail.links?.map((link) => maskSecrets(link, mail.secrets));
    logger.info({ to: mail.to, kind: mail.kind, links }, `mail recorded: ${mail.subject}`);
  },
};

/** Records each message, then sends it through the SMTP relay at `url` (smtp[s]://user:pass@host:port). */
export function createSmtpMailer(url: string, defaultFrom: string): Mailer {
  // nodemailer is loaded at the first message, not with every process that may never send one.
  let transport: Promise<Transporter> | undefined;
  return {
    async send(prisma, mail) {
      await record(prisma, mail);
      transport ??= import("nodemailer").then(({ default: nodemailer }) => nodemailer.createTransport(url));
      await (await transport).sendMail({
        from: mail.from ?? defaultFrom,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        messageId: mail.messageId,
        inReplyTo: mail.inReplyTo,
        references: mail.references,
      });
      logger.info({ to: mail.to, kind: mail.kind }, `mail sent: ${mail.subject}`);
    },
  };
}
