// pg-boss's `db` option over the database the app already opened, so the queue adds no connections of
// its own. On PostgreSQL that is the app's session pool: the app's pool itself (pg-boss's statements are
// short, and sharing the pool keeps one DATABASE_POOL_MAX per process), or DATABASE_DIRECT_URL's behind
// a pooler in transaction mode, whose statement lists (BEGIN ... COMMIT, advisory locks) need a session. PGlite has one connection, queried one call at a time;
// `query` takes one statement with parameters, while pg-boss's schema install and maintenance send
// several statements (BEGIN ... COMMIT) without any, which only `exec` accepts.
import type PgBoss from "pg-boss";
import { logger } from "@/lib/logger";
import { checkOutSession, type Database } from "@/server/shared/db";

type Rows = { rows: unknown[] };
// A statement list gives one result per statement; the caller wants the last.
const lastRows = (result: Rows | Rows[]) => ({ rows: (Array.isArray(result) ? result.at(-1)?.rows : result.rows) ?? [] });

// pg-boss records a worker's job as completed or failed without awaiting the statement (its manager's
// onFetch): that statement failing (the database restarting, the pool closed at shutdown) would be an
// unhandled rejection, which ends a Node process. Those two are answered "nothing changed" (count 0) instead,
// and logged: the job stays active and expires into its retry, as if the process had died.
const UNAWAITED_OUTCOME = /^\s*WITH (results AS \(\s*UPDATE \S+\.job\s+SET completed_on|deleted_jobs AS \(\s*DELETE FROM \S+\.job\s+WHERE name = \$1 AND id IN)/;

function outcomeKept(executeSql: PgBoss.Db["executeSql"]): PgBoss.Db["executeSql"] {
  return async (text, values) => {
    if (!UNAWAITED_OUTCOME.test(text)) return executeSql(text, values);
    try {
      return await executeSql(text, values);
    } catch (error) {
      logger.warn({ err: error }, "could not record a job's outcome; it is retried once it expires");
      return { rows: [{ count: 0 }] };
    }
  };
}

export function jobDatabase(database: Database): PgBoss.Db {
  const db = driverDatabase(database);
  return { executeSql: outcomeKept(db.executeSql.bind(db)) };
}

function driverDatabase(database: Database): PgBoss.Db {
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
