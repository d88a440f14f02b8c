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

export async function runToolSources(prisma: PrismaClient, accountId: number, endUserId: number | null): Promise<RunToolSources> {
  const rows = await queryRows<RunToolSources>(
    prisma,
    Prisma.sql`SELECT
      EXISTS (SELECT 1 FROM platform_app_connections
              WHERE account_id = ${accountId} AND end_user_id IS NOT DISTINCT FROM ${endUserId}::int
                AND status IN ('active', 'expired')) AS connections,
      EXISTS (SELECT 1 FROM platform_tool_servers
              WHERE account_id = ${accountId} AND (end_user_id IS NULL OR end_user_id = ${endUserId}::int)
                AND status = 'approved') AS servers`,
  );
  return rows[0] ?? { connections: true, servers: true };
}
