// A fresh database per test file, started from the run's migrated template (tests/setup/database-template.ts):
// in-memory PGlite loaded from the template's tarball, or, in the integration-postgres project, a new
// PostgreSQL database copied from the template on the TEST_DATABASE_URL server and dropped afterwards.
import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import pg from "pg";
import { inject } from "vitest";
import { openDatabase, type Database, type OpenDatabaseOptions } from "@/server/shared/db";

export type TestDatabaseKind = "pglite" | "postgres";

// eslint-disable-next-line no-restricted-properties -- set per vitest project, not app configuration
export const testDatabaseKind: TestDatabaseKind = process.env.INLAY_TEST_DB === "postgres" ? "postgres" : "pglite";

function serverUrl(): string {
  // eslint-disable-next-line no-restricted-properties -- the test server, not app configuration
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error("TEST_DATABASE_URL is required for the integration-postgres project");
  return url;
}

function provided<K extends "pgliteTemplate" | "postgresTemplate">(key: K): string {
  const value = inject(key);
  if (!value) throw new Error(`no ${key}: run the integration tests through vitest.config.ts, whose globalSetup builds it`);
  return value;
}

async function createPostgresDatabase(template?: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `inlay_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: serverUrl() });
  await admin.connect();
  try {
    await admin.query(template ? `CREATE DATABASE "${name}" TEMPLATE "${template}"` : `CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl());
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: serverUrl() });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await client.end();
    },
  };
}

/** Creates an empty PostgreSQL database (no migrations) and returns its URL and a way to drop it. */
export function createEmptyPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  return createPostgresDatabase();
}

/** Creates a PostgreSQL database with every migration applied (a copy of the run's template). */
export function createMigratedPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  return createPostgresDatabase(provided("postgresTemplate"));
}

export interface TestDatabase extends Database {
  dispose(): Promise<void>;
}

export interface TestDatabaseOptions extends Omit<OpenDatabaseOptions, "url" | "dataDir" | "loadDataDir"> {
  /**
   * Start from an empty database and apply every migration, instead of copying the migrated template.
   * Implied by `migrationsDir`: the template holds prisma/migrations.
   */
  empty?: boolean;
}

export async function createTestDatabase({ empty, ...options }: TestDatabaseOptions = {}): Promise<TestDatabase> {
  const fromTemplate = !empty && options.migrationsDir === undefined;
  if (testDatabaseKind === "postgres") {
    const created = fromTemplate ? await createMigratedPostgresDatabase() : await createEmptyPostgresDatabase();
    // On a copy of the template this only checks that every migration is applied.
    const database = await openDatabase({ ...options, url: created.url });
    return {
      ...database,
      async dispose() {
        await database.close();
        await created.drop();
      },
    };
  }
  const loadDataDir = fromTemplate ? new Blob([await readFile(provided("pgliteTemplate"))]) : undefined;
  // On its own thread, as the servers run PGlite (`pgliteThread: false` for PGlite in the test's thread).
  const database = await openDatabase({ pgliteThread: true, ...options, dataDir: "memory://", loadDataDir });
  return { ...database, dispose: () => database.close() };
}
