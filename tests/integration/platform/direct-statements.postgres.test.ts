// repositories/direct.ts on PostgreSQL: the hot statements are prepared once per connection, named by
// their text; a migration that changes what a prepared statement returns does not break it; the
// number of prepared texts is bounded; DATABASE_PREPARED_STATEMENTS=false prepares nothing.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Prisma, type PrismaClient } from "@/server/generated/prisma/client";
import { execute, MAX_PREPARED, queryRows, sendStraightToPostgres } from "@/server/platform/repositories/direct";
import { createEmptyPostgresDatabase } from "../../helpers/database";

let database: { url: string; drop(): Promise<void> };
// One connection each: what is prepared is the connection's, read back through the same one.
let pool: pg.Pool;
let unpreparedPool: pg.Pool;
// queryRows() finds the pool by the client object; no PrismaClient is needed for direct statements.
const prepared = {} as PrismaClient;
const unprepared = {} as PrismaClient;

beforeAll(async () => {
  database = await createEmptyPostgresDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 1 });
  unpreparedPool = new pg.Pool({ connectionString: database.url, max: 1 });
  // pool.end() resolves before its connections have closed; dropping the database (WITH FORCE) then
  // terminates them, which a pool reports as an error event (server/shared/db.ts logs the same).
  for (const each of [pool, unpreparedPool]) each.on("error", () => {});
  sendStraightToPostgres(prepared, pool);
  sendStraightToPostgres(unprepared, unpreparedPool, false);
  await pool.query("CREATE TABLE items (id serial PRIMARY KEY, label text NOT NULL)");
});
afterAll(async () => {
  await pool?.end();
  await unpreparedPool?.end();
  await database?.drop();
});

const preparedOn = async (on: pg.Pool) =>
  (await on.query<{ name: string; statement: string }>("SELECT name, statement FROM pg_prepared_statements ORDER BY prepare_time")).rows;

describe("direct statements on PostgreSQL", () => {
  it("prepares a statement once and sends it by name after", async () => {
    const find = (id: number) => Prisma.sql`SELECT id, label FROM items WHERE id = ${id}`;
    await execute(prepared, Prisma.sql`INSERT INTO items (label) VALUES (${"first"})`);
    expect(await queryRows(prepared, find(1))).toEqual([{ id: 1, label: "first" }]);
    expect(await queryRows(prepared, find(2))).toEqual([]);
    const statements = (await preparedOn(pool)).filter((row) => row.statement.includes("FROM items WHERE id"));
    expect(statements).toHaveLength(1);
    expect(statements[0]!.name).toMatch(/^inlay_[0-9a-f]{24}$/);
  });

  it("survives a migration that changes what a prepared statement returns, writing once", async () => {
    const insert = (label: string) => Prisma.sql`INSERT INTO items (label) VALUES (${label}) RETURNING *`;
    expect(await queryRows(prepared, insert("before"))).toEqual([{ id: 2, label: "before" }]);
    await pool.query("ALTER TABLE items ADD COLUMN note text DEFAULT 'added'");
    // PostgreSQL refuses the cached plan of the old row shape; the statement is prepared afresh.
    expect(await queryRows(prepared, insert("after"))).toEqual([{ id: 3, label: "after", note: "added" }]);
    expect((await pool.query("SELECT count(*)::int AS n FROM items WHERE label = 'after'")).rows[0].n).toBe(1);
    const names = (await preparedOn(pool)).filter((row) => row.statement.includes("INSERT INTO items")).map((row) => row.name);
    expect(names.at(-1)).toMatch(/^inlay_[0-9a-f]{24}_r1$/);
    expect(await queryRows(prepared, insert("again"))).toEqual([{ id: 4, label: "again", note: "added" }]);
  });

  it("prepares nothing when told not to (a pooler in transaction mode)", async () => {
    expect(await queryRows(unprepared, Prisma.sql`SELECT label FROM items WHERE id = ${1}`)).toEqual([{ label: "first" }]);
    expect(await preparedOn(unpreparedPool)).toEqual([]);
  });

  it(`prepares at most ${MAX_PREPARED} texts, then sends the rest unnamed`, async () => {
    // Texts that differ, as a statement built from a list of any length would.
    for (let width = 1; width <= MAX_PREPARED + 20; width++) {
      const columns = Prisma.raw(Array.from({ length: width }, (_, index) => `${index} AS c${index}`).join(", "));
      const [row] = await queryRows<Record<string, number>>(prepared, Prisma.sql`SELECT ${columns}, ${width}::int AS width`);
      expect(row!.width).toBe(width);
    }
    expect((await preparedOn(pool)).length).toBeLessThanOrEqual(MAX_PREPARED + 1);
    expect((await preparedOn(pool)).some((row) => row.statement.includes(`AS c${MAX_PREPARED + 10},`))).toBe(false);
  });
});
