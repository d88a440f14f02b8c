// A throw-away PostgreSQL server of a test's own (initdb in a temp directory, a free loopback port,
// its socket in the same directory), so a test can stop and restart it without touching the
// machine's shared one. Run as the `postgres` user when the test runs as root (PostgreSQL refuses
// root). No fsync (only an OS crash would lose data), but commits are synchronous: an immediate
// shutdown keeps every commit a client was told of, as a production server does.
import { execFile } from "node:child_process";
import { chown, mkdtemp, rm } from "node:fs/promises";
import { freePort } from "@/server/cluster/ports";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";

const run = promisify(execFile);

/** Where Debian's PostgreSQL 15 binaries are (the machine's server is the same release). */
export const POSTGRES_BIN = "/usr/lib/postgresql/15/bin";

export type ShutdownMode = "fast" | "immediate";

export interface PostgresServer {
  readonly port: number;
  /** A connection string for `database` on this server (superuser postgres, trust auth). */
  url(database?: string): string;
  createDatabase(name: string): Promise<string>;
  start(): Promise<void>;
  /** Stops the server: `fast` ends sessions cleanly, `immediate` as a crash would (recovery at the next start). */
  stop(mode?: ShutdownMode): Promise<void>;
  /** Stops it, and starts it again once stopped. */
  restart(mode?: ShutdownMode): Promise<void>;
  /** Stops the server if it runs and deletes its directory. */
  remove(): Promise<void>;
}

const asRoot = process.getuid?.() === 0;

/** Runs a PostgreSQL binary as postgres (we may be root), and returns its output. */
async function runAsPostgres(binary: string, args: string[]): Promise<string> {
  const [command, argv] = asRoot ? ["runuser", ["-u", "postgres", "--", binary, ...args]] : [binary, args];
  try {
    const { stdout, stderr } = await run(command, argv, { cwd: "/tmp" });
    return stdout + stderr;
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${path.basename(binary)} ${args.join(" ")} failed: ${failed.stderr || failed.stdout || failed.message}`);
  }
}

export async function createPostgresServer(): Promise<PostgresServer> {
  const dir = await mkdtemp(path.join(tmpdir(), "inlay-pg-"));
  if (asRoot) {
    const uid = Number((await run("id", ["-u", "postgres"])).stdout.trim());
    const gid = Number((await run("id", ["-g", "postgres"])).stdout.trim());
    await chown(dir, uid, gid);
  }
  const data = path.join(dir, "data");
  const port = await freePort();
  await runAsPostgres(`${POSTGRES_BIN}/initdb`, ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync", "--no-instructions"]);
  const options = [
    `-p ${port}`,
    `-k ${dir}`,
    "-c listen_addresses=127.0.0.1",
    "-c fsync=off",
    "-c full_page_writes=off",
    "-c max_connections=200",
  ].join(" ");
  const pgCtl = (args: string[]) => runAsPostgres(`${POSTGRES_BIN}/pg_ctl`, ["-D", data, ...args]);
  let running = false;
  const server: PostgresServer = {
    port,
    url: (database = "postgres") => `postgres://postgres@127.0.0.1:${port}/${database}`,
    async createDatabase(name) {
      const client = new pg.Client({ connectionString: server.url() });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE "${name}"`);
      } finally {
        await client.end();
      }
      return server.url(name);
    },
    async start() {
      // -w: returns once the server accepts connections.
      await pgCtl(["-w", "-t", "60", "-l", path.join(dir, "server.log"), "-o", options, "start"]);
      running = true;
    },
    async stop(mode = "fast") {
      await pgCtl(["-w", "-t", "60", "-m", mode, "stop"]);
      running = false;
    },
    async restart(mode = "fast") {
      await server.stop(mode);
      await server.start();
    },
    async remove() {
      if (running) await server.stop("immediate").catch(() => {});
      await rm(dir, { recursive: true, force: true });
    },
  };
  try {
    await server.start();
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return server;
}
