// PGlite on a thread of its own (server/shared/pglite-thread.ts): what the servers run on the default
// install. Prisma's reads and writes, its interactive transactions (commit, rollback, the adapter's own
// rollback), its errors, the columns whose parsers stay on the main thread, LISTEN/NOTIFY and pg-boss's
// statement lists must behave as on PGlite in the same thread.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Prisma } from "@/server/generated/prisma/client";
import { jobDatabase } from "@/server/platform/infrastructure/pg-boss-db";
import { openDatabase } from "@/server/shared/db";
import { compiledPgliteWasm } from "@/server/shared/pglite-thread";
import { createTestDatabase, type TestDatabase } from "../../helpers/database";

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase({ pgliteThread: true });
});
afterAll(() => database?.dispose());

const tenant = (slug: string) => ({ slug, name: slug.toUpperCase() });

describe("PGlite on its own thread", () => {
  it("runs Prisma's reads and writes there, with timestamps, numerics, JSON and int8 parsed as on one thread", async () => {
    const created = await database.prisma.tenant.create({ data: tenant("thread-a") });
    expect(created.createdAt).toBeInstanceOf(Date);
    expect(Math.abs(created.createdAt.getTime() - Date.now())).toBeLessThan(60_000);
    const found = await database.prisma.tenant.findUnique({ where: { slug: "thread-a" } });
    expect(found).toEqual(created);

    const [row] = await database.prisma.$queryRaw<Array<{ n: bigint; d: Prisma.Decimal; j: unknown; t: Date; b: boolean; i: number }>>`
      SELECT 9007199254740993::int8 AS n, 12.345::numeric AS d, '{"a":[1,"x"]}'::jsonb AS j,
             '2026-12-07T10:00:00.123Z'::timestamptz AS t, true AS b, 42::int4 AS i`;
    expect(row!.n).toBe(9007199254740993n);
    expect(row!.d.toString()).toBe("12.345");
    expect(row!.j).toEqual({ a: [1, "x"] });
    expect(row!.t.toISOString()).toBe("2026-12-07T10:00:00.123Z");
    expect(row!.b).toBe(true);
    expect(row!.i).toBe(42);
  });

  it("answers PGlite's own values to callers without parsers (pg-boss, migrations), as PGlite in the same thread does", async () => {
    const sql = `SELECT 12.5::numeric AS n, ARRAY[1.5, 2]::numeric[] AS ns, '10:00'::time AS t, '2026-12-07'::date AS d,
      ARRAY['2026-12-07'::date] AS ds, '2026-12-07 10:00:00.5'::timestamp AS ts, '2026-12-07T10:00:00.5Z'::timestamptz AS tz,
      ARRAY['2026-12-07T10:00:00Z'::timestamptz, NULL] AS tzs, '{"a":1}'::json AS j, '[{"b":2}]'::jsonb AS jb,
      ARRAY['{"c":3}'::jsonb] AS jbs, '\\x0102'::bytea AS b, 9007199254740993::int8 AS i8, ARRAY[1, 2]::int8[] AS i8s,
      ARRAY['x', 'y'] AS texts, 7 AS i4, NULL::timestamptz AS none`;
    const here = await createTestDatabase({ pgliteThread: false });
    try {
      const { pglite: threaded } = database.driver as Extract<TestDatabase["driver"], { kind: "pglite" }>;
      const { pglite: inThread } = here.driver as Extract<TestDatabase["driver"], { kind: "pglite" }>;
      const [fromThread, fromHere] = [await threaded.query(sql), await inThread.query(sql)];
      expect(fromThread.rows).toEqual(fromHere.rows);
      expect(fromThread.fields).toEqual(fromHere.fields);
      const [execThread, execHere] = [await threaded.exec(sql), await inThread.exec(sql)];
      expect(execThread.map((result) => result.rows)).toEqual(execHere.map((result) => result.rows));
      expect((fromThread.rows[0] as { tz: unknown }).tz).toBeInstanceOf(Date);
    } finally {
      await here.dispose();
    }
  });

  it("prepares a statement once: it answers after its table changed shape, and after 250 others pushed it out", async () => {
    const { pglite } = database.driver as Extract<TestDatabase["driver"], { kind: "pglite" }>;
    await pglite.exec("CREATE TABLE thread_shape (id int PRIMARY KEY); INSERT INTO thread_shape VALUES (1)");
    const read = "SELECT * FROM thread_shape WHERE id = $1";
    expect((await pglite.query(read, [1])).rows).toEqual([{ id: 1 }]);
    await pglite.exec("ALTER TABLE thread_shape ADD COLUMN name text DEFAULT 'one'");
    expect((await pglite.query(read, [1])).rows).toEqual([{ id: 1, name: "one" }]);

    for (let index = 0; index < 260; index++) expect((await pglite.query(`SELECT $1::int + ${index} AS n`, [1])).rows).toEqual([{ n: index + 1 }]);
    expect((await pglite.query(read, [1])).rows).toEqual([{ id: 1, name: "one" }]);
    const [{ count }] = (await pglite.query<{ count: number }>("SELECT count(*)::int AS count FROM pg_prepared_statements")).rows as [{ count: number }];
    expect(count).toBeLessThanOrEqual(250);
  });

  it("commits an interactive transaction, and rolls back one that throws", async () => {
    await database.prisma.$transaction(async (tx) => {
      await tx.tenant.create({ data: tenant("thread-commit") });
      expect(await tx.tenant.count({ where: { slug: "thread-commit" } })).toBe(1);
    });
    expect(await database.prisma.tenant.count({ where: { slug: "thread-commit" } })).toBe(1);

    await expect(
      database.prisma.$transaction(async (tx) => {
        await tx.tenant.create({ data: tenant("thread-rollback") });
        throw new Error("changed my mind");
      }),
    ).rejects.toThrow("changed my mind");
    expect(await database.prisma.tenant.count({ where: { slug: "thread-rollback" } })).toBe(0);
  });

  it("rolls back a transaction whose statement failed, and answers Prisma's own error for it", async () => {
    await database.prisma.tenant.create({ data: tenant("thread-unique") });
    const failure = await database.prisma
      .$transaction(async (tx) => {
        await tx.tenant.create({ data: tenant("thread-partial") });
        await tx.tenant.create({ data: tenant("thread-unique") });
      })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Prisma.PrismaClientKnownRequestError);
    expect((failure as Prisma.PrismaClientKnownRequestError).code).toBe("P2002");
    expect(await database.prisma.tenant.count({ where: { slug: "thread-partial" } })).toBe(0);
    // The one connection is free again.
    expect(await database.prisma.tenant.count({ where: { slug: "thread-unique" } })).toBe(1);
  });

  it("queues statements from outside a transaction behind it, as PGlite's one connection does", async () => {
    let inside!: () => void;
    const holding = new Promise<void>((resolve) => (inside = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const transaction = database.prisma.$transaction(async (tx) => {
      await tx.tenant.create({ data: tenant("thread-held") });
      inside();
      await released;
    });
    await holding;
    // Sent while the transaction holds the connection: it sees the row only once that commits.
    const count = database.prisma.tenant.count({ where: { slug: "thread-held" } });
    release();
    await transaction;
    expect(await count).toBe(1);
  });

  it("delivers NOTIFY to a listener, and stops when it unlistens", async () => {
    const { pglite } = database.driver as Extract<TestDatabase["driver"], { kind: "pglite" }>;
    const heard: string[] = [];
    let arrived!: () => void;
    const first = new Promise<void>((resolve) => (arrived = resolve));
    const unlisten = await pglite.listen("thread_test", (payload) => {
      heard.push(payload);
      arrived();
    });
    await pglite.query("SELECT pg_notify('thread_test', 'hello')");
    await first;
    await unlisten();
    await pglite.query("SELECT pg_notify('thread_test', 'unheard')");
    await pglite.query("SELECT 1");
    expect(heard).toEqual(["hello"]);
  });

  it("runs pg-boss's statement lists, and leaves no transaction open after one fails", async () => {
    const db = jobDatabase(database);
    const result = await db.executeSql("BEGIN; CREATE TEMP TABLE thread_list (n int); INSERT INTO thread_list VALUES (1), (2); SELECT sum(n) AS s FROM thread_list; COMMIT;", []);
    expect(result.rows).toEqual([]);
    await expect(db.executeSql("BEGIN; SELECT 1/0; COMMIT;", [])).rejects.toMatchObject({ code: "22012" });
    expect((await db.executeSql("SELECT count(*)::int AS n FROM thread_list", [])).rows).toEqual([{ n: 2 }]);
  });

  it("dumps its data directory, which a new database opens on a thread sharing the first's compiled WebAssembly", async () => {
    const { pglite } = database.driver as Extract<TestDatabase["driver"], { kind: "pglite" }>;
    await pglite.exec("CHECKPOINT");
    const dump = await pglite.dumpDataDir("none");
    // The process's first thread handed back PGlite's compiled WebAssembly; this one starts from it.
    const modules = compiledPgliteWasm();
    expect(modules?.pgliteWasmModule).toBeInstanceOf(WebAssembly.Module);
    expect(modules?.initdbWasmModule).toBeInstanceOf(WebAssembly.Module);
    const copy = await openDatabase({ dataDir: "memory://", loadDataDir: dump, pgliteThread: true });
    try {
      expect(compiledPgliteWasm()).toBe(modules);
      expect(await copy.prisma.tenant.count({ where: { slug: "thread-a" } })).toBe(1);
    } finally {
      await copy.close();
    }
  });
});
