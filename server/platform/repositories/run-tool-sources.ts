// Whether a run's scope has anything that brings tools beyond the built-in ones: a usable app
// connection (exactly the run's scope, as repositories/app-connections.ts scopes them) or an approved
// custom tool server (the account level or the run's end-user, as repositories/tool-servers.ts).
// One statement on the driver (direct.ts) read before every run's first token: the full reads, with
// their relations, are made only for a scope that has some.
import { Prisma, type PrismaClient } from "@/server/generated/prisma/client";
import { queryRows } from "./direct";

export interface RunToolSources {
  connections: boolean;
  servers: boolean;
}

/** Both answers as one jsonb object; account and end-user as SQL (a value, or a column of a run's row). */
const toolSourcesSql = (accountId: Prisma.Sql, endUserId: Prisma.Sql) => Prisma.sql`jsonb_build_object(
  'connections', EXISTS (SELECT 1 FROM platform_app_connections
                         WHERE account_id = ${accountId} AND end_user_id IS NOT DISTINCT FROM ${endUserId}
                           AND status IN ('active', 'expired')),
  'servers', EXISTS (SELECT 1 FROM platform_tool_servers
                     WHERE account_id = ${accountId} AND (end_user_id IS NULL OR end_user_id = ${endUserId})
                       AND status = 'approved'))`;

export async function runToolSources(prisma: PrismaClient, accountId: number, endUserId: number | null): Promise<RunToolSources> {
  const rows = await queryRows<{ sources: RunToolSources }>(prisma, Prisma.sql`SELECT ${toolSourcesSql(Prisma.sql`${accountId}::int`, Prisma.sql`${endUserId}::int`)} AS sources`);
  return rows[0]?.sources ?? { connections: true, servers: true };
}

/** The same, as a column of a statement reading a run (the worker's claim); `run` names the run's row. */
export const runToolSourcesOfRun = (run: Prisma.Sql) => toolSourcesSql(Prisma.sql`${run}.account_id`, Prisma.sql`${run}.end_user_id`);
