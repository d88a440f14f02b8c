// Start-up work of the Next.js server: database first, then demo data on an empty installation.
import { env } from "@/lib/env";
import { logger } from "@/lib/logger";
import { seedDemoData } from "@/prisma/seed";
import { getDb } from "./db";

export async function startFramework(): Promise<void> {
  const database = await getDb();
  if (env.usingDevAuthSecret) {
    logger.warn("NEXTAUTH_SECRET is not set: using the development secret (never do this in production)");
  }
  if (env.SEED_DEMO_DATA) {
    const { seeded } = await seedDemoData(database.prisma);
    if (seeded) logger.info("seeded the demo tenants acme and globex (passwords in the README)");
  }
}
