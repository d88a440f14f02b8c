// A private PgBouncer in transaction mode in front of a test's PostgreSQL: a child process (foreground)
// with its own config in a temp directory, on a free loopback port. PgBouncer refuses to run as root:
// as root, it runs as postgres (-u). .ci/run installs Debian's pgbouncer (without its system service).
import { type ChildProcess, spawn } from "node:child_process";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { accepts, freePort } from "@/server/cluster/ports";

export const PGBOUNCER_BINARY = "/usr/sbin/pgbouncer";

export interface PgBouncer {
  readonly port: number;
  /** A connection string for `database` through PgBouncer. */
  url(database: string): string;
  close(): Promise<void>;
}

export async function startPgBouncer(server: { port: number }, options: { poolSize?: number } = {}): Promise<PgBouncer> {
  const dir = await mkdtemp(path.join(tmpdir(), "inlay-pgbouncer-"));
  // Read by the postgres user PgBouncer runs as.
  await chmod(dir, 0o755);
  const port = await freePort();
  const config = path.join(dir, "pgbouncer.ini");
  await writeFile(path.join(dir, "users.txt"), '"postgres" ""\n');
  await writeFile(
    config,
    [
      "[databases]",
      `* = host=127.0.0.1 port=${server.port}`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =",
      "auth_type = trust",
      `auth_file = ${path.join(dir, "users.txt")}`,
      "pool_mode = transaction",
      `default_pool_size = ${options.poolSize ?? 20}`,
      "max_client_conn = 1000",
      // After a failed connection to the server (it restarts), try again within a second, not 15 s.
      "server_login_retry = 1",
      // node-postgres sends statement_timeout as a startup parameter (DATABASE_STATEMENT_TIMEOUT_MS);
      // PgBouncer refuses what it does not know unless told to ignore it (docs/deploy.md).
      "ignore_startup_parameters = statement_timeout",
      "",
    ].join("\n"),
  );
  await chmod(config, 0o644);
  const args = [...(process.getuid?.() === 0 ? ["-u", "postgres"] : []), config];
  const child: ChildProcess = spawn(PGBOUNCER_BINARY, args, { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const deadline = Date.now() + 15_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null) throw new Error(`pgbouncer exited with ${child.exitCode}: ${output}`);
    if (Date.now() > deadline) throw new Error(`pgbouncer did not listen on ${port}: ${output}`);
    await delay(25);
  }
  return {
    port,
    url: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
    async close() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGINT");
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}
