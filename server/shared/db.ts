// The Prisma client factory. No DATABASE_URL: PGlite in-process (data under PGLITE_DATA_DIR, or in
// memory with "memory://"). With DATABASE_URL: PostgreSQL through @prisma/adapter-pg. Either way the
// migrations in prisma/migrations are applied before the client is handed out.
import { mkdir } from "node:fs/promises";
import { setTimeout as delay } from "node:timers/promises";
import type { PGlite } from "@electric-sql/pglite";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { env } from "@/lib/env";
import { logger } from "@/lib/logger";
import { PrismaClient } from "@/server/generated/prisma/client";
import { DataDirError, lockDataDir, type DataDirLock } from "@/server/shared/data-dir-lock";
import { isDatabaseUnavailable } from "@/server/shared/db-errors";
import { openPgliteThread, type PgliteClient } from "@/server/shared/pglite-thread";
import {
  applyMigrations,
  readMigrations,
  type Migration,
  type MigrationReport,
  type MigrationSession,
} from "@/server/shared/migrate";

/** The database handle the rest of the code passes around (Prisma stays behind the repositories). */
export type Db = PrismaClient;

export type Driver =
  /** `pglite`: PGlite itself, or its stand-in when it runs on a thread of its own (pglite-thread.ts). */
  | { kind: "pglite"; pglite: PgliteClient }
  /**
   * `preparedStatements`: the hot statements sent straight to the driver are prepared (DATABASE_PREPARED_STATEMENTS).
   * `session`: connections that are sessions of their own (LISTEN, advisory locks, the job queue): the
   * pool itself, or one on DATABASE_DIRECT_URL when the pool's URL is a pooler in transaction mode.
   */
  | { kind: "postgres"; pool: pg.Pool; session: pg.Pool; preparedStatements: boolean };

export interface Database {
  prisma: PrismaClient;
  kind: Driver["kind"];
  /** The raw driver, for what Prisma does not cover (LISTEN/NOTIFY, advisory locks). */
  driver: Driver;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** A PostgreSQL connection string; without one, PGlite is used. */
  url?: string;
  /** PGlite data directory, or "memory://" for a throw-away in-memory database. */
  dataDir?: string;
  /**
   * PGlite only: start from this tarball of a data directory (PGlite's dumpDataDir()) instead of an
   * empty one. Tests load a migrated copy, which is much faster than initdb plus every migration;
   * the migrations are still checked, and whatever the tarball lacks is applied.
   */
  loadDataDir?: Blob;
  migrationsDir?: string;
  /** PostgreSQL connections in the pool (DATABASE_POOL_MAX). */
  poolMax?: number;
  /** How long a transaction may wait for a connection, and run (DATABASE_TRANSACTION_WAIT_MS). */
  transactionWaitMs?: number;
  /** PostgreSQL only: prepare the statements sent straight to the driver (DATABASE_PREPARED_STATEMENTS). */
  preparedStatements?: boolean;
  /** PostgreSQL only: a URL straight to the server, for sessions, when `url` is a pooler (DATABASE_DIRECT_URL). */
  directUrl?: string;
  /** How long a query waits for a pool connection or a new connection (DATABASE_CONNECT_TIMEOUT_MS). */
  connectTimeoutMs?: number;
  /** The server-side limit of one statement, 0 for none (DATABASE_STATEMENT_TIMEOUT_MS). */
  statementTimeoutMs?: number;
  /** PGlite only: its shared_buffers (PGLITE_SHARED_BUFFERS). */
  pgliteSharedBuffers?: string;
  /**
   * PGlite only: run it on a thread of its own (pglite-thread.ts), so its statements' work leaves the
   * process's event loop. The servers' entry points ask for it (INLAY_WORKER_THREAD), and so do the
   * tests; the operator's CLI keeps it in its thread.
   */
  pgliteThread?: boolean;
}

/** Connections of the session pool (DATABASE_DIRECT_URL): the LISTEN connection and the job queue's statements. */
const SESSION_POOL_MAX = 4;

/** Applies migrations on one session of the driver (the advisory lock belongs to a session). */
export async function migrate(driver: Driver, migrations: Migration[]): Promise<MigrationReport> {
  const log = (message: string) => logger.info(message);
  if (driver.kind === "pglite") {
    const { pglite } = driver;
    const session: MigrationSession = {
      query: async <Row>(sql: string, params?: unknown[]) => (await pglite.query<Row>(sql, params)).rows,
      exec: async (sql) => void (await pglite.exec(sql)),
    };
    return applyMigrations(session, migrations, log);
  }
  const { client, release } = await checkOutSession(driver.session);
  try {
    // A migration may rewrite a large table: no statement limit on its session, which is then closed
    // rather than handed back with the setting changed.
    await client.query("SET statement_timeout = 0");
    const session: MigrationSession = {
      query: async (sql, params) => (await client.query(sql, params)).rows,
      exec: async (sql) => void (await client.query(sql)),
    };
    return await applyMigrations(session, migrations, log);
  } finally {
    release(true);
  }
}

export async function openDatabase(options: OpenDatabaseOptions = {}): Promise<Database> {
  const migrations = await readMigrations(options.migrationsDir);
  // Prisma's defaults (2 s to get a connection, 5 s to run) turned every burst that queued for the
  // pool into failed requests and crashed runs (P2028); a burst should wait its turn instead.
  const wait = options.transactionWaitMs ?? env.DATABASE_TRANSACTION_WAIT_MS;
  const transactionOptions = { maxWait: wait, timeout: wait };

  if (options.url) {
    const limits = postgresLimits(options);
    const pool = newPool({ ...limits, connectionString: options.url, max: options.poolMax ?? env.DATABASE_POOL_MAX });
    const directUrl = options.directUrl ?? env.DATABASE_DIRECT_URL;
    const session = directUrl && directUrl !== options.url ? newPool({ ...limits, connectionString: directUrl, max: SESSION_POOL_MAX }) : pool;
    const endPools = async () => {
      await pool.end();
      if (session !== pool) await session.end();
    };
    const driver: Driver = { kind: "postgres", pool, session, preparedStatements: options.preparedStatements ?? env.DATABASE_PREPARED_STATEMENTS };
    try {
      await migrate(driver, migrations);
    } catch (error) {
      await endPools();
      throw error;
    }
    const prisma = new PrismaClient({ adapter: new PrismaPg(pool), transactionOptions });
    return {
      prisma,
      kind: "postgres",
      driver,
      close: async () => {
        await prisma.$disconnect();
        await endPools();
      },
    };
  }

  const dataDir = options.dataDir ?? "memory://";
  let lock: DataDirLock | undefined;
  if (!dataDir.startsWith("memory://")) {
    await mkdir(dataDir, { recursive: true });
    lock = lockDataDir(dataDir);
  }
  // Loaded only without DATABASE_URL: a process on PostgreSQL never holds PGlite or its adapter.
  const [{ PGlite }, { PrismaPGlite }] = await Promise.all([import("@electric-sql/pglite"), import("pglite-prisma-adapter")]);
  const startParams = [...PGlite.defaultStartParams, "-c", `shared_buffers=${options.pgliteSharedBuffers ?? env.PGLITE_SHARED_BUFFERS}`];
  let pglite: PgliteClient;
  try {
    pglite = options.pgliteThread
      ? await openPgliteThread({ dataDir, loadDataDir: options.loadDataDir, startParams, onExit: stopOnDatabaseLoss })
      : await PGlite.create({ dataDir, loadDataDir: options.loadDataDir, startParams });
  } catch (error) {
    lock?.release();
    throw unopenable(dataDir, error);
  }
  try {
    await migrate({ kind: "pglite", pglite }, migrations);
  } catch (error) {
    await pglite.close().catch(() => {});
    lock?.release();
    throw error instanceof WebAssembly.RuntimeError ? unopenable(dataDir, error) : error;
  }
  // The adapter uses only what PgliteClient has of PGlite (query, exec, transaction).
  const prisma = new PrismaClient({ adapter: new PrismaPGlite(pglite as PGlite), transactionOptions });
  return {
    prisma,
    kind: "pglite",
    driver: { kind: "pglite", pglite },
    close: async () => {
      await prisma.$disconnect();
      await pglite.close();
      lock?.release();
    },
  };
}

/**
 * PGlite's thread ended unasked (it crashed): the database is gone, so the process stops as on SIGTERM
 * (its lifecycle drains what it can) with exit code 1, and its orchestrator or supervisor starts it again.
 */
function stopOnDatabaseLoss(error: Error) {
  logger.error({ err: error }, "the PGlite thread ended: stopping the process");
  process.exitCode = 1;
  process.kill(process.pid, "SIGTERM");
}

/** The limits every PostgreSQL connection of the process gets (pg's pool and connection options). */
function postgresLimits(options: OpenDatabaseOptions): pg.PoolConfig {
  const statementTimeout = options.statementTimeoutMs ?? env.DATABASE_STATEMENT_TIMEOUT_MS;
  return {
    // Without it pg waits for a free connection (and for a server that does not answer) forever.
    connectionTimeoutMillis: options.connectTimeoutMs ?? env.DATABASE_CONNECT_TIMEOUT_MS,
    // A server that vanished without closing its sockets (a failover) is found out by TCP keepalives.
    keepAlive: true,
    ...(statementTimeout > 0 ? { statement_timeout: statementTimeout } : {}),
  };
}

/**
 * A client checked out of a pool for a session of several statements. pg emits "error" on a client
 * whose connection ends (a restart, a failover), and the pool listens only while the client is idle in
 * it: a checked-out client's error would crash the process. Here it is logged (the statement in flight
 * fails on its own), until the client goes back (`release(destroy)`).
 */
export async function checkOutSession(pool: pg.Pool): Promise<{ client: pg.PoolClient; release(destroy?: boolean): void }> {
  const client = await pool.connect();
  const onError = (error: Error) => logger.warn({ err: error }, "a PostgreSQL session's connection ended");
  client.on("error", onError);
  return {
    client,
    release(destroy) {
      client.release(destroy);
      client.removeListener("error", onError);
    },
  };
}

function newPool(config: pg.PoolConfig): pg.Pool {
  const pool = new pg.Pool(config);
  // An idle connection the server closes (restart, failover, admin command) must not crash the
  // process; the pool replaces it on the next checkout.
  pool.on("error", (error) => logger.warn({ err: error }, "idle PostgreSQL connection closed"));
  return pool;
}

/**
 * openDatabase, waiting for a database that does not answer yet (a process started before
 * PostgreSQL, or during its restart): tries again with backoff, from 250 ms to 5 s, for as long as
 * the failure is the database's absence; any other failure (a bad URL, a failed migration) throws.
 * `onWait` hears of each failed try (the process is not ready meanwhile).
 */
export async function openDatabaseWhenReachable(
  options: OpenDatabaseOptions,
  onWait: (error: unknown, retryInMs: number) => void = () => {},
  signal?: AbortSignal,
): Promise<Database> {
  let waitMs = 250;
  for (;;) {
    try {
      return await openDatabase(options);
    } catch (error) {
      if (!options.url || !isDatabaseUnavailable(error) || signal?.aborted) throw error;
      onWait(error, waitMs);
      await delay(waitMs, undefined, signal ? { signal } : undefined);
      waitMs = Math.min(5_000, waitMs * 2);
    }
  }
}

/**
 * PGlite's own failure (`Aborted()`, "failed to initialize") says neither why nor what to do: a directory
 * that the lock let through but PGlite cannot start is damaged (written by two processes at once before
 * the lock existed, or a copy taken while it was open) or from another PGlite version.
 */
function unopenable(dataDir: string, cause: unknown): DataDirError {
  const reason = cause instanceof Error ? cause.message.split("\n")[0] : String(cause);
  return new DataDirError(
    `cannot open the PGlite data directory ${dataDir} (${reason}): it is damaged, or was written by another PGlite version. ` +
      "Restore it from a copy taken while Inlay was stopped, or move it aside to start on an empty database " +
      "(a demo installation seeds itself again), or use PostgreSQL (DATABASE_URL)",
    { cause },
  );
}

/**
 * A client with a connection of its own, for work that must not queue behind the pool: the run event
 * writer, whose one statement at a time carries every run's frames. On PostgreSQL that is one more
 * connection beside the pool; PGlite has a single connection, so it is the database's own client.
 */
export function openDedicatedClient(database: Database): { prisma: PrismaClient; pool?: pg.Pool; close(): Promise<void> } {
  if (database.driver.kind === "pglite") return { prisma: database.prisma, close: async () => {} };
  const pool = newPool({ ...database.driver.pool.options, max: 1 });
  return { prisma: directOnlyClient(), pool, close: () => pool.end() };
}

/**
 * The dedicated connection's client: its statements all go straight to the driver (the caller
 * registers `pool` for it: platform/repositories/direct.ts), so it is no PrismaClient, which would
 * hold about 13 MB of heap per process for nothing. Anything that reaches for Prisma on it fails
 * at once, saying so.
 */
function directOnlyClient(): PrismaClient {
  return new Proxy(Object.create(null) as object, {
    get(_target, property) {
      // Inspection and promise checks look for these; they are simply absent.
      if (typeof property === "symbol" || property === "then" || property === "toJSON") return undefined;
      throw new Error(`the dedicated connection takes direct statements only, not prisma.${property}`);
    },
  }) as PrismaClient;
}

// One database per process. Kept on globalThis because Next.js dev reloads modules, and a second
// PGlite on the same data directory would corrupt it.
const holder = globalThis as unknown as { __inlayDatabase?: Promise<Database> };

export function getDb(): Promise<Database> {
  holder.__inlayDatabase ??= openDatabase({ url: env.DATABASE_URL, dataDir: env.PGLITE_DATA_DIR }).catch(
    (error: unknown) => {
      holder.__inlayDatabase = undefined;
      throw error;
    },
  );
  return holder.__inlayDatabase;
}

/** For entry points that choose their own database (the standalone platform, tests). */
export function setProcessDatabase(database: Database): void {
  holder.__inlayDatabase = Promise.resolve(database);
}
