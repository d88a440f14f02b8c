import { mkdtemp, mkdir, readdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { migrate } from "@/server/shared/db";
import { readMigrations } from "@/server/shared/migrate";
import { createTestDatabase, testDatabaseKind, type TestDatabase } from "../../helpers/database";

const opened: TestDatabase[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((database) => database.dispose()));
});

async function open(options: Parameters<typeof createTestDatabase>[0] = {}) {
  const database = await createTestDatabase(options);
  opened.push(database);
  return database;
}

async function migrationsDir(migrations: Record<string, string>) {
  const dir = await mkdtemp(path.join(tmpdir(), "inlay-migrations-"));
  for (const [name, sql] of Object.entries(migrations)) {
    await mkdir(path.join(dir, name));
    await writeFile(path.join(dir, name, "migration.sql"), sql);
  }
  return dir;
}

interface MigrationRow {
  migration_name: string;
  finished_at: Date | null;
  logs: string | null;
  applied_steps_count: number;
}

const rows = (database: TestDatabase) =>
  database.prisma.$queryRawUnsafe<MigrationRow[]>(
    `SELECT migration_name, finished_at, logs, applied_steps_count FROM "_prisma_migrations" ORDER BY migration_name`,
  );

describe(`migrations on ${testDatabaseKind}`, () => {
  it("applies every migration in prisma/migrations to an empty database and records each in _prisma_migrations", async () => {
    const database = await open({ empty: true });
    const expected = (await readdir("prisma/migrations", { withFileTypes: true }))
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
    const recorded = await rows(database);
    expect(recorded.map((row) => row.migration_name)).toEqual(expected);
    expect(recorded.every((row) => row.finished_at !== null && row.applied_steps_count === 1)).toBe(true);
    // The schema is really there: Prisma can use it.
    await database.prisma.tenant.create({ data: { slug: "t1", name: "T1" } });
    expect(await database.prisma.tenant.count()).toBe(1);
  });

  it("starts other tests' databases from a template that has every migration applied", async () => {
    const database = await open();
    const all = await readMigrations();
    expect(await migrate(database.driver, all)).toEqual({ applied: [], alreadyApplied: all.length });
    expect((await rows(database)).map((row) => row.migration_name)).toEqual(all.map((migration) => migration.name));
  });

  it("applies only what is new on a database that is already migrated", async () => {
    const dir = await migrationsDir({
      "001_first": `CREATE TABLE first_table (id int primary key);`,
    });
    const database = await open({ migrationsDir: dir });
    await mkdir(path.join(dir, "002_second"));
    await writeFile(path.join(dir, "002_second", "migration.sql"), `ALTER TABLE first_table ADD COLUMN note text;`);

    const report = await migrate(database.driver, await readMigrations(dir));
    expect(report).toEqual({ applied: ["002_second"], alreadyApplied: 1 });
    const again = await migrate(database.driver, await readMigrations(dir));
    expect(again).toEqual({ applied: [], alreadyApplied: 2 });
    expect((await rows(database)).map((row) => row.migration_name)).toEqual(["001_first", "002_second"]);
  });

  it("rolls a failing migration back whole, records the failure and refuses to go on", async () => {
    const dir = await migrationsDir({
      "001_ok": `CREATE TABLE kept (id int primary key);`,
      "002_broken": `CREATE TABLE half_done (id int primary key);\nSELECT * FROM no_such_table;`,
    });
    await expect(open({ migrationsDir: dir })).rejects.toThrow(/migration 002_broken failed/);
  });

  it("keeps the failure on record so a restart does not silently retry it", async () => {
    const good = await migrationsDir({ "001_ok": `CREATE TABLE kept (id int primary key);` });
    const database = await open({ migrationsDir: good });
    const broken = [
      ...(await readMigrations(good)),
      { name: "002_broken", sql: "CREATE TABLE half_done (id int);\nSELECT * FROM no_such_table;", checksum: "x" },
    ];
    await expect(migrate(database.driver, broken)).rejects.toThrow(/002_broken failed/);

    const recorded = await rows(database);
    expect(recorded.map((row) => [row.migration_name, row.finished_at === null])).toEqual([
      ["001_ok", false],
      ["002_broken", true],
    ]);
    expect(recorded[1]?.logs).toMatch(/no_such_table/);
    // The transaction took the half-created table with it.
    const tables = await database.prisma.$queryRawUnsafe<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM information_schema.tables WHERE table_name = 'half_done'`,
    );
    expect(tables[0]?.n).toBe(0);
    await expect(migrate(database.driver, broken)).rejects.toThrow(/failed earlier/);
  });
});
