// pg-boss's `db` option over the database the app already opened, so the queue adds no connections of
// its own. On PostgreSQL that is the app's pool: pg-boss's statements are short and single, and
// sharing the pool keeps one DATABASE_POOL_MAX per process. PGlite has one connection, queried one
// call at a time; `query` takes one statement with parameters, while pg-boss's schema install and
// maintenance send several statements (BEGIN ... COMMIT) without any, which only `exec` accepts.
import type PgBoss from "pg-boss";
import type { Database } from "@/server/db";

export function jobDatabase(database: Database): PgBoss.Db {
  const { driver } = database;
  if (driver.kind === "postgres") {
    return { executeSql: async (text, values) => driver.pool.query(text, values) };
  }
  const { pglite } = driver;
  return {
    async executeSql(text, values) {
      if (values && values.length > 0) return { rows: (await pglite.query(text, values)).rows };
      const results = await pglite.exec(text);
      return { rows: results.at(-1)?.rows ?? [] };
    },
  };
}
