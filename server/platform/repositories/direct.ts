// The hot statements that run outside any transaction (a request's key and agent lookups, the
// statement that creates a run, the event writer's INSERT, metering), sent straight to PostgreSQL's
// driver when the client has a pool registered: Prisma spends about three times pg's CPU on each
// statement (a measurement in bench/results/2026-11-22-runs.md), and these run for every request or
// every run. Rows come back
// shaped as $queryRaw shapes them (int8 as bigint; timestamptz as Date and jsonb parsed, as pg does
// anyway). Anything else, a transaction's client (never registered) or PGlite, goes through Prisma.
//
// They are prepared statements: PostgreSQL parses and plans each once per connection instead of on
// every call (the admission's and the pass end's are CTEs of 2-4 KB, sent for every run; one-process
// run creation went from 164-170 to 213-219 runs/s, bench/results/2026-11-29-run-path-goals.md). A
// statement's name is a hash of its text, the same on every connection. At most MAX_PREPARED texts get
// a name; any further one is sent unnamed (a text built from a list of any length would otherwise
// prepare without end). A migration that changes a table a prepared statement returns whole
// (`RETURNING *`) makes PostgreSQL refuse the statement's cached plan before running it ("cached plan
// must not change result type"): its text gets a new name, prepared afresh, and is sent once more.
import { createHash } from "node:crypto";
import pg from "pg";
import type { Prisma, PrismaClient } from "@/server/generated/prisma/client";

const pools = new WeakMap<object, { pool: pg.Pool; prepared: boolean }>();

/**
 * Lets repositories run `prisma`'s hot autocommit statements on `pool` (the one Prisma uses), as
 * prepared statements unless `prepared` is false (DATABASE_PREPARED_STATEMENTS).
 */
export function sendStraightToPostgres(prisma: PrismaClient, pool: pg.Pool, prepared = true): void {
  pools.set(prisma, { pool, prepared });
}

export const MAX_PREPARED = 500;
const names = new Map<string, string>();
let renamed = 0;

function nameOf(text: string): string | undefined {
  let name = names.get(text);
  if (name === undefined && names.size < MAX_PREPARED) {
    name = `inlay_${createHash("sha1").update(text).digest("hex").slice(0, 24)}`;
    names.set(text, name);
  }
  return name;
}

const isStalePlan = (error: unknown) =>
  error instanceof Error && (error as { code?: string }).code === "0A000" && error.message.includes("cached plan must not change result type");

async function send(target: { pool: pg.Pool; prepared: boolean }, sql: Prisma.Sql): Promise<pg.QueryResult> {
  // Prisma.Sql builds its text anew on every read of `text`: read once.
  const text = sql.text;
  const name = target.prepared ? nameOf(text) : undefined;
  try {
    return await target.pool.query({ name, text, values: sql.values, types });
  } catch (error) {
    if (name === undefined || !isStalePlan(error)) throw error;
    // Refused before it ran: nothing it writes was written.
    const fresh = `${name.replace(/_r\d+$/, "")}_r${++renamed}`;
    names.set(text, fresh);
    return await target.pool.query({ name: fresh, text, values: sql.values, types });
  }
}

const INT8 = 20;
const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === INT8 && format !== "binary" ? (value: string) => BigInt(value) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/** `prisma.$queryRaw(sql)`, on the driver when it can be. */
export async function queryRows<T>(prisma: PrismaClient, sql: Prisma.Sql): Promise<T[]> {
  const target = pools.get(prisma);
  if (!target) return prisma.$queryRaw<T[]>(sql);
  return (await send(target, sql)).rows as T[];
}

/** `prisma.$executeRaw(sql)`, on the driver when it can be: the rows the statement changed. */
export async function execute(prisma: PrismaClient, sql: Prisma.Sql): Promise<number> {
  const target = pools.get(prisma);
  if (!target) return prisma.$executeRaw(sql);
  return (await send(target, sql)).rowCount ?? 0;
}
