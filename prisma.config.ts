// Prisma CLI configuration. Only `prisma generate` is used from the CLI: migrations are written by
// scripts/db-migration.ts (offline, through @prisma/schema-engine-wasm) and applied by server/shared/migrate.ts.
import { defineConfig } from "prisma/config";

export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
});
