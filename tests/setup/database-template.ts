// Vitest global setup of the integration projects: one migrated template database per run, so the
// fresh database of each test file is a copy of it instead of an empty database plus every
// migration (initdb and 17 migrations took ~4.5 s per file on PGlite on a busy 2-core machine).
import { createHash, randomBytes } from "node:crypto";
import { mkdir, readFile, rename, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { openDatabase } from "@/server/shared/db";
import { readMigrations } from "@/server/shared/migrate";

declare module "vitest" {
  export interface ProvidedContext {
    /** integration-pglite: path of a tarball of a migrated PGlite data directory (dumpDataDir()). */
    pgliteTemplate?: string;
    /** integration-postgres: a migrated database on the TEST_DATABASE_URL server, to copy from. */
    postgresTemplate?: string;
  }
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  if (project.config.env.INLAY_TEST_DB === "postgres") {
    const template = await createPostgresTemplate();
    project.provide("postgresTemplate", template.name);
    return template.drop;
  }
  project.provide("pgliteTemplate", await pgliteTemplate());
  return undefined;
}

/**
 * The PGlite template is kept in the temp directory between runs, named by a hash of what shapes it
 * (the migrations, the migration runner, the PGlite version): a changed migration builds a new one.
 */
async function pgliteTemplate(): Promise<string> {
  const hash = createHash("sha256");
  for (const migration of await readMigrations()) hash.update(`${migration.name}\0${migration.checksum}\0`);
  hash.update(await readFile(path.join(process.cwd(), "server", "shared", "migrate.ts")));
  hash.update(await readFile(path.join(process.cwd(), "node_modules", "@electric-sql", "pglite", "package.json")));
  const dir = path.join(tmpdir(), "inlay-test-templates");
  const file = path.join(dir, `pglite-${hash.digest("hex").slice(0, 16)}.tar`);
  if (await stat(file).then((stats) => stats.size > 0, () => false)) return file;

  const database = await openDatabase({ dataDir: "memory://" });
  try {
    if (database.driver.kind !== "pglite") throw new Error("expected PGlite");
    // A checkpoint first, so a copy starts without replaying the migrations from the WAL.
    await database.driver.pglite.exec("CHECKPOINT");
    const tarball = await database.driver.pglite.dumpDataDir("none");
    await mkdir(dir, { recursive: true });
    // Written beside and renamed into place: runs that start together never read half a file.
    const partial = `${file}.${process.pid}.${randomBytes(4).toString("hex")}`;
    await writeFile(partial, Buffer.from(await tarball.arrayBuffer()));
    await rename(partial, file);
  } finally {
    await database.close();
  }
  return file;
}

/**
 * The PostgreSQL template belongs to this run (other runs may share the server with other migrations)
 * and is dropped when it ends. Nothing may be connected to it while it is copied, so it refuses
 * connections once migrated.
 */
async function createPostgresTemplate(): Promise<{ name: string; drop(): Promise<void> }> {
  // eslint-disable-next-line no-restricted-properties -- the test server, not app configuration
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) throw new Error("TEST_DATABASE_URL is required for the integration-postgres project");
  const name = `inlay_template_${randomBytes(6).toString("hex")}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  const drop = () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin(`CREATE DATABASE "${name}"`);
  try {
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    const database = await openDatabase({ url: url.toString(), poolMax: 1 });
    await database.close();
    await admin(`ALTER DATABASE "${name}" WITH ALLOW_CONNECTIONS false`);
  } catch (error) {
    await drop();
    throw error;
  }
  return { name, drop };
}
