// A private Dovecot IMAP server for tests: a child process (foreground, -F) on a free loopback port,
// with its own config, base and state dirs, a passwd-file of test users and maildirs, all in a
// temporary directory; nothing under /etc or /var is used. Plain IMAP without TLS on loopback only.
// .ci/run installs dovecot-imapd (without starting the system service).
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, chown, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, connect } from "node:net";
import { tmpdir, userInfo } from "node:os";
import path from "node:path";
import { ImapFlow } from "imapflow";

export const DOVECOT_BINARY = "/usr/sbin/dovecot";

export interface DovecotUser {
  name: string;
  password: string;
}

export interface Dovecot {
  host: string;
  port: number;
  /** Puts a raw message into the user's mailbox (IMAP APPEND). */
  append(user: DovecotUser, raw: string, mailbox?: string): Promise<void>;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The account Dovecot's processes and mail run as: ours, or nobody's when we are root (Dovecot refuses root for mail). */
function runAs() {
  if (process.getuid?.() === 0) {
    const id = (flag: string) => execFileSync("id", [flag, "nobody"], { encoding: "utf8" }).trim();
    return { user: "nobody", group: id("-gn"), uid: Number(id("-u")), gid: Number(id("-g")) };
  }
  const me = userInfo();
  return { user: me.username, group: execFileSync("id", ["-gn"], { encoding: "utf8" }).trim(), uid: me.uid, gid: me.gid };
}

/** Resolves once the server sends its greeting. */
async function greeted(port: number, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`dovecot exited with ${child.exitCode}: ${output()}`);
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.setTimeout(1_000);
      socket.once("data", (data) => {
        socket.destroy();
        resolve(data.toString().startsWith("* OK"));
      });
      socket.once("error", () => resolve(false));
      socket.once("timeout", () => {
        socket.destroy();
        resolve(false);
      });
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`dovecot did not greet on port ${port}: ${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function startDovecot(users: DovecotUser[]): Promise<Dovecot> {
  if (!existsSync(DOVECOT_BINARY)) throw new Error(`${DOVECOT_BINARY} is missing: install the dovecot-imapd package (.ci/run does)`);
  const dir = await mkdtemp(path.join(tmpdir(), "inlay-dovecot-"));
  const account = runAs();
  for (const sub of ["base", "state", "mail"]) await mkdir(path.join(dir, sub));
  const port = await freePort();
  // PLAIN passwords: test users only, in a file only this test reads.
  await writeFile(path.join(dir, "users"), users.map((user) => `${user.name}:{PLAIN}${user.password}::::::\n`).join(""));
  const config = `
base_dir = ${dir}/base
state_dir = ${dir}/state
instance_name = inlay-test-${port}
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
default_internal_user = ${account.user}
default_internal_group = ${account.group}
default_login_user = ${account.user}
first_valid_uid = 1
log_path = /dev/stderr
mail_location = maildir:${dir}/mail/%u
passdb {
  driver = passwd-file
  args = username_format=%u ${dir}/users
}
userdb {
  driver = passwd-file
  args = username_format=%u ${dir}/users
  default_fields = uid=${account.uid} gid=${account.gid} home=${dir}/mail/%u
}
service imap-login {
  chroot =
  inet_listener imap {
    address = 127.0.0.1
    port = ${port}
  }
  inet_listener imaps {
    port = 0
  }
}
service anvil {
  chroot =
}
`;
  await writeFile(path.join(dir, "dovecot.conf"), config);
  if (process.getuid?.() === 0) {
    // The temporary directory is root's and private; nobody must reach the mail and the sockets.
    await chmod(dir, 0o755);
    for (const sub of ["", "base", "state", "mail", "users", "dovecot.conf"]) await chown(path.join(dir, sub), account.uid, account.gid);
  }
  let output = "";
  const child = spawn(DOVECOT_BINARY, ["-F", "-c", path.join(dir, "dovecot.conf")], { stdio: ["ignore", "pipe", "pipe"] });
  child.stdout!.on("data", (data: Buffer) => (output += data.toString()));
  child.stderr!.on("data", (data: Buffer) => (output += data.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  try {
    await greeted(port, child, () => output.slice(-2_000));
  } catch (error) {
    child.kill("SIGTERM");
    await exited;
    await rm(dir, { recursive: true, force: true });
    throw error;
  }

  return {
    host: "127.0.0.1",
    port,
    async append(user, raw, mailbox = "INBOX") {
      const client = new ImapFlow({ host: "127.0.0.1", port, secure: false, auth: { user: user.name, pass: user.password }, logger: false, disableAutoIdle: true });
      client.on("error", () => {});
      await client.connect();
      try {
        await client.append(mailbox, raw);
      } finally {
        await client.logout().catch(() => client.close());
      }
    },
    async close() {
      if (child.exitCode === null) {
        child.kill("SIGTERM");
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}

