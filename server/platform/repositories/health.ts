// What readiness asks of the database (server/platform/health.ts).
import type { Db } from "./db";

/** Resolves once the database answers a statement. */
export async function pingDatabase(prisma: Db): Promise<void> {
  await prisma.$queryRaw`SELECT 1`;
}

/** The migrations applied to this database and not rolled back. */
export async function appliedMigrationNames(prisma: Db): Promise<Set<string>> {
  const rows = await prisma.$queryRaw<{ migration_name: string }[]>`
    SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`;
  return new Set(rows.map((row) => row.migration_name));
}
