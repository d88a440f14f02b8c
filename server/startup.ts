// Start-up work of the Next.js server: database first, then demo data on an empty installation.
import { env } from "@/lib/env";
import { logger } from "@/lib/logger";
import { seedDemoData } from "@/prisma/seed";
import { getDb } from "./db";
import { getPlatformConnection } from "./tenancy/platform-connection";
import { sweepRunAdmissions } from "./tenancy/runs";

// How often each instance looks for run admissions nobody released (see server/tenancy/runs.ts).
const SWEEP_INTERVAL_MS = 60_000;

export async function startFramework(): Promise<void> {
  const database = await getDb();
  if (env.usingDevAuthSecret) {
    logger.warn("NEXTAUTH_SECRET is not set: using the development secret (never do this in production)");
  }
  if (env.SEED_DEMO_DATA) {
    const { seeded } = await seedDemoData(database.prisma);
    if (seeded) logger.info("seeded the demo tenants acme and globex (passwords in the README)");
  }
  // Connect (in embedded mode: provision the framework's platform account on the first start) now,
  // so the first member's request does not wait for it. A failure is retried on first use.
  getPlatformConnection(database.prisma).catch((error: unknown) => {
    logger.error({ err: error instanceof Error ? error.message : String(error) }, "could not connect to the platform");
  });
  const sweep = setInterval(() => {
    getPlatformConnection(database.prisma)
      .then((connection) => sweepRunAdmissions(database.prisma, connection))
      .catch((error: unknown) => logger.warn({ err: error instanceof Error ? error.message : String(error) }, "admission sweep failed"));
  }, SWEEP_INTERVAL_MS);
  sweep.unref();
}
