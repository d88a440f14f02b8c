// The SMTP server of agent inboxes and email triggers (worker role; docs/platform-api.md, "Email").
// It accepts mail for known addresses only: RCPT TO asks entry-points/email-inbound.ts checkRecipient, so an
// unknown address or a sender not allowed gets 550 before any data. No AUTH and no STARTTLS: it is
// meant to sit behind the deployment's MX (or be reached on a private network), which does TLS.
import type { AddressInfo } from "node:net";
import type { SMTPServerSession } from "smtp-server";
import { logger } from "@/lib/logger";
import { PlatformError } from "../errors";
import type { AddressOwner } from "../repositories/email";
import { toInboundMail } from "./mail-parse";
import { checkRecipient, receiveMail, type InboundContext } from "../entry-points/email-inbound";

// Where the unit tests of HTML-only mail take it from.
export { toInboundMail };

export interface SmtpSettings {
  port: number;
  host: string;
  /** The largest message accepted (announced as SIZE; larger ones get 552). */
  maxBytes: number;
}

export interface InboundSmtpServer {
  port: number;
  close(): Promise<void>;
}

/** Recipients per message, the RFC's minimum a server must take. */
const MAX_RECIPIENTS = 100;

const smtpError = (code: number, message: string) => Object.assign(new Error(message), { responseCode: code });

/** Starts listening; `context()` gives the run services for each message (a fresh worker lease). */
export async function startSmtpServer(settings: SmtpSettings, context: () => InboundContext): Promise<InboundSmtpServer> {
  // The recipients RCPT TO accepted, per connection, for the message under way.
  const accepted = new WeakMap<SMTPServerSession, AddressOwner[]>();
  // Loaded only by a process that runs the inbound server (email.smtp configured), when it starts.
  const { SMTPServer } = await import("smtp-server");
  const senderOf = (session: SMTPServerSession) => (session.envelope.mailFrom ? session.envelope.mailFrom.address : "");

  const server = new SMTPServer({
    name: "inlay",
    banner: "Inlay agent inboxes",
    authOptional: true,
    disabledCommands: ["AUTH", "STARTTLS"],
    size: settings.maxBytes,
    logger: false,
    onMailFrom(_address, session, callback) {
      accepted.set(session, []);
      callback();
    },
    onRcptTo(address, session, callback) {
      const owners = accepted.get(session) ?? [];
      if (owners.length >= MAX_RECIPIENTS) return callback(smtpError(452, "4.5.3 too many recipients"));
      checkRecipient(context().prisma, senderOf(session), address.address).then(
        (decision) => {
          if (!decision.ok) return callback(smtpError(decision.code, decision.message));
          accepted.set(session, [...owners, decision.owner]);
          callback();
        },
        (error: unknown) => {
          logger.warn({ err: error }, "smtp: recipient check failed");
          callback(smtpError(451, "4.3.0 temporary failure, try again later"));
        },
      );
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        // smtp-server stops counting past `size` and says so here.
        if ((stream as unknown as { sizeExceeded?: boolean }).sizeExceeded) {
          return callback(smtpError(552, `5.3.4 message exceeds the ${settings.maxBytes} byte limit`));
        }
        const owners = accepted.get(session) ?? [];
        const sender = senderOf(session);
        deliver(context(), sender, owners, Buffer.concat(chunks)).then(
          (failure) => (failure ? callback(smtpError(failure.code, failure.message)) : callback(null, "2.0.0 accepted")),
          (error: unknown) => {
            logger.warn({ err: error }, "smtp: delivery failed");
            callback(smtpError(451, "4.3.0 temporary failure, try again later"));
          },
        );
      });
    },
  });
  server.on("error", (error) => logger.warn({ err: error }, "smtp server error"));

  await new Promise<void>((resolve, reject) => {
    server.server.once("error", reject);
    server.listen(settings.port, settings.host, () => {
      server.server.off("error", reject);
      resolve();
    });
  });
  const port = (server.server.address() as AddressInfo).port;
  logger.info({ port, host: settings.host }, "smtp server listening for agent inboxes");
  return {
    port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * Hands the message to each recipient's inbox. A recipient whose run admission refused (balance, caps)
 * is logged by the service; when every recipient refused, the message is answered 550 with the first
 * reason, so the sender learns it was not taken.
 */
async function deliver(ctx: InboundContext, sender: string, owners: AddressOwner[], raw: Buffer) {
  const { simpleParser } = await import("mailparser");
  const mail = toInboundMail(await simpleParser(raw));
  const refusals: string[] = [];
  for (const owner of owners) {
    try {
      await receiveMail(ctx, sender, owner, mail);
    } catch (error) {
      if (!(error instanceof PlatformError)) throw error;
      refusals.push(error.message);
    }
  }
  if (owners.length > 0 && refusals.length === owners.length) return { code: 550, message: `5.7.0 not accepted: ${refusals[0]}` };
  return undefined;
}
