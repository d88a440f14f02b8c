// Reads an outside IMAP mailbox a user named (fetchmail; docs/platform-api.md, "Email") with imapflow.
// imapflow opens its own socket, so the host is resolved here and every address it has is judged by the
// outbound guard's rules before imapflow is given the address to dial (the name stays the TLS server
// name). The mailbox is opened read-only: nothing in it is marked, moved or deleted.
import { lookup as dnsLookup } from "node:dns/promises";
import { isIP } from "node:net";
import { bareHost, classifyAddress } from "./address-guard";

export interface MailboxSettings {
  host: string;
  port: number;
  /** Implicit TLS (993); false: plain, upgraded with STARTTLS when the server offers it. */
  tls: boolean;
  username: string;
  password: string;
  mailbox: string;
}

export type MailboxErrorReason = "blocked_address" | "login_failed" | "connection_failed" | "timeout" | "no_mailbox" | "server_error";

/** A mailbox that could not be read; `message` names the server and the reason, never the password. */
export class MailboxError extends Error {
  override name = "MailboxError";
  constructor(
    readonly reason: MailboxErrorReason,
    message: string,
  ) {
    super(message);
  }
}

export interface FetchedMessage {
  uid: number;
  size: number;
  /** The raw message; null when it is larger than the cap (not downloaded). */
  source: Buffer | null;
}

export interface OpenMailbox {
  uidValidity: bigint;
  /** The UID the next message will get: everything below it is already there. */
  uidNext: number;
  /** Up to `limit` messages with a UID above `afterUid`, oldest first. */
  messagesAfter(afterUid: number, limit: number, maxBytes: number): Promise<FetchedMessage[]>;
}

export interface MailboxOptions {
  allowLoopback?: boolean;
  /** Connect and greeting budget, and the longest silence of the server afterwards. */
  timeoutMs?: number;
  /** Tests only: a resolver in place of DNS. */
  lookup?: (host: string) => Promise<{ address: string }[]>;
}

const DEFAULT_TIMEOUT_MS = 15_000;

/** The address to dial for `host`: refused when any address it has is not one the platform may reach. */
export async function guardedMailboxAddress(host: string, options: MailboxOptions = {}): Promise<string> {
  const bare = bareHost(host);
  let addresses: string[];
  if (isIP(bare) !== 0) addresses = [bare];
  else {
    try {
      const resolve = options.lookup ?? ((name: string) => dnsLookup(name, { all: true }));
      addresses = (await resolve(bare)).map((entry) => entry.address);
    } catch {
      throw new MailboxError("connection_failed", `${bare} could not be resolved`);
    }
    if (addresses.length === 0) throw new MailboxError("connection_failed", `${bare} has no addresses`);
  }
  // Every address, as guarded-fetch does: a name with one public and one private address is refused.
  for (const address of addresses) {
    const verdict = classifyAddress(address, { allowLoopback: options.allowLoopback });
    if (!verdict.allowed) {
      throw new MailboxError("blocked_address", bare === verdict.address ? `${bare} is ${verdict.why}` : `${bare} resolves to ${verdict.address}, ${verdict.why}`);
    }
  }
  return addresses[0]!;
}

interface ImapFailure {
  authenticationFailed?: boolean;
  code?: string;
  responseText?: string;
  serverResponseCode?: string;
  message?: string;
}

function describe(error: unknown, settings: MailboxSettings): MailboxError {
  if (error instanceof MailboxError) return error;
  const failure = (error ?? {}) as ImapFailure;
  const server = `${settings.host}:${settings.port}`;
  if (failure.authenticationFailed || failure.serverResponseCode === "AUTHENTICATIONFAILED") {
    return new MailboxError("login_failed", `the IMAP server ${server} refused the login of ${settings.username}${failure.responseText ? ` (${failure.responseText})` : ""}`);
  }
  if (failure.code === "CONNECT_TIMEOUT" || failure.code === "GREETING_TIMEOUT" || failure.code === "ETIMEOUT" || failure.code === "ETIMEDOUT") {
    return new MailboxError("timeout", `the IMAP server ${server} did not answer in time`);
  }
  if (failure.code && /^E[A-Z]+$|^ERR_/.test(failure.code)) {
    return new MailboxError("connection_failed", `could not talk to the IMAP server ${server} (${failure.code}${settings.tls ? "; tls is on: is the port an IMAPS one?" : ""})`);
  }
  if (failure.serverResponseCode === "NONEXISTENT" || /doesn't exist|does not exist|not exist/i.test(failure.responseText ?? "")) {
    return new MailboxError("no_mailbox", `the IMAP server ${server} has no mailbox "${settings.mailbox}" for ${settings.username}`);
  }
  const said = failure.responseText ?? failure.message ?? "unknown error";
  return new MailboxError("server_error", `the IMAP server ${server} answered an error: ${said.slice(0, 300)}`);
}

/** Logs in, opens the mailbox read-only, hands it to `read`, and logs out whatever happens. */
export async function withMailbox<T>(settings: MailboxSettings, options: MailboxOptions, read: (mailbox: OpenMailbox) => Promise<T>): Promise<T> {
  const address = await guardedMailboxAddress(settings.host, options);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const name = bareHost(settings.host);
  // Loaded at the first poll: a process without fetchmail mailboxes never needs imapflow.
  const { ImapFlow } = await import("imapflow");
  const client = new ImapFlow({
    host: address,
    port: settings.port,
    secure: settings.tls,
    // The name the certificate must carry (and SNI), since imapflow dials the checked address.
    ...(isIP(name) === 0 ? { servername: name } : {}),
    auth: { user: settings.username, pass: settings.password },
    logger: false,
    disableAutoIdle: true,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: Math.max(timeoutMs * 2, 30_000),
  });
  // A socket error after connect is reported on the client; the command under way rejects with it.
  client.on("error", () => {});
  // IMAP failures become MailboxErrors; what `read` throws (its own errors) passes through as it is.
  const imap = async <R>(step: () => Promise<R>): Promise<R> => {
    try {
      return await step();
    } catch (error) {
      throw describe(error, settings);
    }
  };
  try {
    const opened = await imap(async () => {
      await client.connect();
      return client.mailboxOpen(settings.mailbox, { readOnly: true });
    });
    const mailbox: OpenMailbox = {
      uidValidity: BigInt(opened.uidValidity),
      uidNext: Number(opened.uidNext),
      messagesAfter: (afterUid, limit, maxBytes) =>
        imap(async () => {
          if (Number(opened.exists) === 0) return [];
          const found: { uid: number; size: number }[] = [];
          // `n:*` always names the newest message, even when its UID is below n: filtered here.
          for await (const message of client.fetch(`${afterUid + 1}:*`, { uid: true, size: true }, { uid: true })) {
            if (message.uid > afterUid) found.push({ uid: message.uid, size: message.size ?? 0 });
          }
          found.sort((a, b) => a.uid - b.uid);
          const taken: FetchedMessage[] = [];
          for (const { uid, size } of found.slice(0, limit)) {
            if (size > maxBytes) {
              taken.push({ uid, size, source: null });
              continue;
            }
            const message = await client.fetchOne(String(uid), { source: true }, { uid: true });
            // Expunged meanwhile: nothing to take.
            if (message && message.source) taken.push({ uid, size, source: message.source });
          }
          return taken;
        }),
    };
    const result = await read(mailbox);
    await client.logout().catch(() => {});
    return result;
  } catch (error) {
    client.close();
    throw error;
  }
}
