// Applies prisma/migrations/*/migration.sql at start-up, on PGlite and on PostgreSQL alike, and records
// each one in `_prisma_migrations` (Prisma's own table and columns, so `prisma migrate status` reads it).
// A session-level advisory lock makes instances that start together apply each migration once: the
// first takes the lock and migrates, the others wait and then find nothing left to do.
import { createHash, randomUUID } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";

/** One database session: the lock, the bookkeeping and the migration must all run on it. */
export interface MigrationSession {
  query<Row>(sql: string, params?: unknown[]): Promise<Row[]>;
  /** Runs a script of several statements. */
  exec(sql: string): Promise<void>;
}

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export interface MigrationReport {
  applied: string[];
  alreadyApplied: number;
}

// Any constant works; it only has to be the same for every instance of Inlay.
const MIGRATION_LOCK_KEY = 7_240_001;

export const defaultMigrationsDir = () => path.join(process.cwd(), "prisma", "migrations");

export async function readMigrations(dir = defaultMigrationsDir()): Promise<Migration[]> {
  // The migrations are read from the checkout at run time; the bundler must not trace the project for them.
  const entries = await readdir(/*turbopackIgnore: true*/ dir, { withFileTypes: true });
  const names = entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await readFile(/*turbopackIgnore: true*/ path.join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    }),
  );
}

interface AppliedRow {
  migration_name: string;
  checksum: string;
  finished_at: Date | string | null;
}

export class MigrationError extends Error {
  override name = "MigrationError";
}

export async function applyMigrations(
  session: MigrationSession,
  migrations: Migration[],
  log: (message: string) => void = () => {},
): Promise<MigrationReport> {
  await session.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_KEY]);
  try {
    await session.exec(`
      CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
        "id"                  VARCHAR(36) PRIMARY KEY NOT NULL,
        "checksum"            VARCHAR(64) NOT NULL,
        "finished_at"         TIMESTAMPTZ,
        "migration_name"      VARCHAR(255) NOT NULL,
        "logs"                TEXT,
        "rolled_back_at"      TIMESTAMPTZ,
        "started_at"          TIMESTAMPTZ NOT NULL DEFAULT now(),
        "applied_steps_count" INTEGER NOT NULL DEFAULT 0
      )`);
    const rows = await session.query<AppliedRow>(
      `SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL`,
    );
    const failed = rows.find((row) => row.finished_at === null);
    if (failed) {
      throw new MigrationError(
        `migration ${failed.migration_name} failed earlier and was not rolled back; ` +
          `fix the database, then mark it rolled back in _prisma_migrations`,
      );
    }
    const applied = new Map(rows.map((row) => [row.migration_name, row.checksum]));
    const report: MigrationReport = { applied: [], alreadyApplied: 0 };
    for (const migration of migrations) {
      const checksum = applied.get(migration.name);
      if (checksum !== undefined) {
        report.alreadyApplied += 1;
        if (checksum !== migration.checksum) {
          log(`migration ${migration.name} was edited after it was applied; the database keeps the old version`);
        }
        continue;
      }
      await applyOne(session, migration);
      report.applied.push(migration.name);
      log(`applied migration ${migration.name}`);
    }
    return report;
  } finally {
    await session.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_KEY]);
  }
}

async function applyOne(session: MigrationSession, migration: Migration) {
  const id = randomUUID();
  await session.query(
    `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at) VALUES ($1, $2, $3, now())`,
    [id, migration.checksum, migration.name],
  );
  try {
    // PostgreSQL DDL is transactional: a migration lands whole or not at all.
    await session.exec(`BEGIN;\n${migration.sql}\n;COMMIT;`);
  } catch (error) {
    await session.exec("ROLLBACK").catch(() => {});
    await session.query(`UPDATE "_prisma_migrations" SET logs = $2 WHERE id = $1`, [id, String(error)]);
    throw new MigrationError(`migration ${migration.name} failed: ${(error as Error).message}`);
  }
  await session.query(
    `UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1`,
    [id],
  );
}
