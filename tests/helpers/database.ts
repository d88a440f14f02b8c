// A fresh database per test file: in-memory PGlite, or, in the integration-postgres project, a new
// PostgreSQL database created on the TEST_DATABASE_URL server and dropped afterwards.
import { randomBytes } from "node:crypto";
import pg from "pg";
import { openDatabase, type Database, type OpenDatabaseOptions } from "@/server/db";

export type TestDatabaseKind = "pglite" | "postgres";

// eslint-disable-next-line no-restricted-properties -- set per vitest project, not app configuration
export const testDatabaseKind: TestDatabaseKind = process.env.INLAY_TEST_DB === "postgres" ? "postgres" : "pglite";

function serverUrl(): string {
  // eslint-disable-next-line no-restricted-properties -- the test server, not app configuration
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error("TEST_DATABASE_URL is required for the integration-postgres project");
  return url;
}

/** Creates an empty PostgreSQL database and returns its URL and a way to drop it. */
export async function createEmptyPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `inlay_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: serverUrl() });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
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

export interface TestDatabase extends Database {
  dispose(): Promise<void>;
}

export async function createTestDatabase(options: Omit<OpenDatabaseOptions, "url" | "dataDir"> = {}): Promise<TestDatabase> {
  if (testDatabaseKind === "postgres") {
    const empty = await createEmptyPostgresDatabase();
    const database = await openDatabase({ ...options, url: empty.url });
    return {
      ...database,
      async dispose() {
        await database.close();
        await empty.drop();
      },
    };
  }
  const database = await openDatabase({ ...options, dataDir: "memory://" });
  return { ...database, dispose: () => database.close() };
}
