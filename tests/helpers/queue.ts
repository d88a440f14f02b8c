// What the job queue (pg-boss, in the database's pgboss schema) still has to do: tests wait for it to
// be done instead of sleeping for a while and hoping.
import type { Db } from "@/server/shared/db";

/** Jobs named `name` not finished yet (created, retrying or running); with `data`, only those whose data has those string fields. */
export async function unfinishedJobs(prisma: Db, name: string, data: Record<string, string> = {}): Promise<number> {
  const [row] = await prisma.$queryRawUnsafe<{ count: number }[]>(
    `SELECT count(*)::int AS count FROM pgboss.job WHERE name = $1 AND state IN ('created', 'retry', 'active') AND data @> $2::jsonb`,
    name,
    JSON.stringify(data),
  );
  return row?.count ?? 0;
}
