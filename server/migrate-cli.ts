// Applies the migrations in prisma/migrations to DATABASE_URL and exits: the one-shot step of a deploy
// (docs/deploy.md), run before the new processes start. Every process also migrates when it starts
// (server/shared/db.ts, under an advisory lock), so this only moves the work, and its failure, out of them.
//   npm run db:migrate
import { env } from "@/lib/env";
import { openDatabase } from "@/server/shared/db";

if (!env.DATABASE_URL) {
  console.error("npm run db:migrate needs DATABASE_URL (PostgreSQL); PGlite migrates when its process starts");
  process.exit(2);
}
const database = await openDatabase({ url: env.DATABASE_URL });
await database.close();
console.log("migrations applied");
