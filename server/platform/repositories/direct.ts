// The hot statements that run outside any transaction (a request's key and agent lookups, the
// statement that creates a run, the event writer's INSERT, metering), sent straight to PostgreSQL's
// driver when the client has a pool registered: Prisma spends about three times pg's CPU on each
// statement (a measurement in bench/results/2026-11-22-runs.md), and these run for every request or
// every run. Rows come back
// shaped as $queryRaw shapes them (int8 as bigint; timestamptz as Date and jsonb parsed, as pg does
// anyway). Anything else, a transaction's client (never registered) or PGlite, goes through Prisma.
import pg from "pg";
import type { Prisma, PrismaClient } from "@/server/generated/prisma/client";

const pools = new WeakMap<object, pg.Pool>();

/** Lets repositories run `prisma`'s hot autocommit statements on `pool` (the one Prisma uses). */
export function sendStraightToPostgres(prisma: PrismaClient, pool: pg.Pool): void {
  pools.set(prisma, pool);
}

const INT8 = 20;
const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === INT8 && format !== "binary" ? (value: string) => BigInt(value) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/** `prisma.$queryRaw(sql)`, on the driver when it can be. */
export async function queryRows<T>(prisma: PrismaClient, sql: Prisma.Sql): Promise<T[]> {
  const pool = pools.get(prisma);
  if (!pool) return prisma.$queryRaw<T[]>(sql);
  return (await pool.query({ text: sql.text, values: sql.values, types })).rows as T[];
}

/** `prisma.$executeRaw(sql)`, on the driver when it can be: the rows the statement changed. */
export async function execute(prisma: PrismaClient, sql: Prisma.Sql): Promise<number> {
  const pool = pools.get(prisma);
  if (!pool) return prisma.$executeRaw(sql);
  return (await pool.query({ text: sql.text, values: sql.values, types })).rowCount ?? 0;
}
