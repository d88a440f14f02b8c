// pg-boss's `db` option over the database the app already opened, so the queue adds no connections of
// its own. On PostgreSQL that is the app's session pool: the app's pool itself (pg-boss's statements are
// short, and sharing the pool keeps one DATABASE_POOL_MAX per process), or DATABASE_DIRECT_URL's behind
// a pooler in transaction mode, whose statement lists (BEGIN ... COMMIT, advisory locks) need a session. PGlite has one connection, queried one call at a time;
// `query` takes one statement with parameters, while pg-boss's schema install and maintenance send
// several statements (BEGIN ... COMMIT) without any, which only `exec` accepts.
import type PgBoss from "pg-boss";
import { checkOutSession, type Database } from "@/server/shared/db";

type Rows = { rows: unknown[] };
// A statement list gives one result per statement; the caller wants the last.
const lastRows = (result: Rows | Rows[]) => ({ rows: (Array.isArray(result) ? result.at(-1)?.rows : result.rows) ?? [] });

export function jobDatabase(database: Database): PgBoss.Db {
  const { driver } = database;
  if (driver.kind === "postgres") {
    const { session: pool } = driver;
    return {
      async executeSql(text, values) {
        if (values && values.length > 0) return pool.query(text, values);
        // A statement list that fails inside its BEGIN leaves the session in an aborted transaction:
        // that connection is closed rather than handed back to the pool.
        const { client, release } = await checkOutSession(pool);
        try {
          const result = lastRows((await client.query(text)) as unknown as Rows | Rows[]);
          release();
          return result;
        } catch (error) {
          release(true);
          throw error;
        }
      },
    };
  }
  const { pglite } = driver;
  return {
    async executeSql(text, values) {
      if (values && values.length > 0) return { rows: (await pglite.query(text, values)).rows };
      try {
        return lastRows(await pglite.exec(text));
      } catch (error) {
        // The one session must not stay in the aborted transaction (a no-op outside one).
        await pglite.exec("ROLLBACK").catch(() => {});
        throw error;
      }
    },
  };
}
