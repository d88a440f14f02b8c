// Start-up work of the Next.js server: database first, then demo data on an empty installation, then
// the framework's jobs on the job queue. Any failure here ends the process (instrumentation.ts).
import { env } from "@/lib/env";
import { logger } from "@/lib/logger";
import { offerDemoAppToDemoTenants, seedDemoData } from "@/prisma/seed";
import { demoAppPlatformSettings } from "./demo-app/demo-app";
import { DataDirError } from "../shared/data-dir-lock";
import { openDatabaseWhenReachable, setProcessDatabase, type Database, type OpenDatabaseOptions } from "../shared/db";
import { publicOrigin } from "../shared/public-origin";
import { DEMO_APP_SLUG, type JobQueue, startTracingFromEnv, stopTracing } from "../platform/embedding";
import { registerFrameworkJobs } from "./tenancy/framework-jobs";
import { getPlatformConnection } from "./platform";
import { ensureLedgerWebhook, ledgerWebhookUrl } from "./tenancy/run-ledger-webhook";
import { closeOnExit, installAppLifecycle, onAppDrain } from "./lifecycle";
import { openAdmissionCount } from "./tenancy/run-ledger";
import { watchLedgerAdmissions } from "./observability/metrics";

export async function startFramework(): Promise<void> {
  // SIGTERM drains the app (lifecycle.ts), first thing: `npm start` leaves the signal to it.
  installAppLifecycle();
  // Spans over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set (the embedded platform's included); flushed last.
  await startTracingFromEnv("app");
  closeOnExit(() => stopTracing());
  const database = await openFrameworkDatabase().catch((error: unknown) => {
    // The data directory is in use by another process, or damaged: every request would fail on it, so
    // say why and what to do once (on stderr, before exiting: the logger writes later), and stop.
    if (error instanceof DataDirError) {
      console.error(error.message);
      process.exit(1);
    }
    throw new Error(`could not open ${databaseName()}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  });
  // Every request's getDb() answers this one.
  setProcessDatabase(database);
  // The database closes last, cleanly.
  closeOnExit(() => database.close());
  if (env.NODE_ENV === "production" && !env.NEXTAUTH_URL) {
    logger.warn(
      { publicOrigin: publicOrigin() },
      "NEXTAUTH_URL is not set: links and sign-in redirects use this local address; set it to the URL people reach the app at",
    );
  }
  if (env.usingDevAuthSecret) {
    logger.warn("NEXTAUTH_SECRET is not set: using the development secret (never do this in production)");
  }
  if (env.SEED_DEMO_DATA) {
    const { seeded } = await seedDemoData(database.prisma);
    if (seeded) logger.info("seeded the demo tenants acme and globex (passwords in the README)");
    // Development: the demo tenants offer the demo app this process serves (docs/connections.md).
    if (demoAppPlatformSettings(publicOrigin())) await offerDemoAppToDemoTenants(database.prisma, DEMO_APP_SLUG);
  }
  // Connect (in embedded mode: provision the framework's platform account on the first start) now,
  // so the first member's request does not wait for it, and register the run ledger's webhook. A
  // failure is retried on first use (and the registration by the ledger's sweep every minute).
  getPlatformConnection(database.prisma)
    .then((connection) => ensureLedgerWebhook(database.prisma, connection, ledgerWebhookUrl()))
    .catch((error: unknown) => {
      logger.error({ err: error instanceof Error ? error.message : String(error) }, "could not connect to the platform");
    });
  const jobs = await frameworkJobQueue(database);
  await registerFrameworkJobs(jobs, database.prisma, () => getPlatformConnection(database.prisma));
  watchLedgerAdmissions(() => openAdmissionCount(database.prisma));
}

/**
 * The app's database: while PostgreSQL does not answer yet (started before it, or
 * during its restart) it tries again with backoff and says so, as the platform's processes do; Next holds
 * requests until start-up ends, so probes wait (the startup probe's window) instead of the process exiting.
 */
export function openFrameworkDatabase(
  // PGlite (the default install) runs on a thread of its own, off the event loop requests and chat streams share.
  options: OpenDatabaseOptions = { url: env.DATABASE_URL, dataDir: env.PGLITE_DATA_DIR, pgliteThread: env.INLAY_WORKER_THREAD },
  onWait = (error: unknown, retryInMs: number) => {
    logger.warn({ err: error instanceof Error ? error.message : String(error), retryInMs }, "the database does not answer yet; trying again");
  },
): Promise<Database> {
  return openDatabaseWhenReachable(options, onWait);
}

/** The database start-up opens, as an operator configured it (never the URL: it may hold a password). */
function databaseName(): string {
  return env.DATABASE_URL ? "the PostgreSQL database (DATABASE_URL)" : `the PGlite database in ${env.PGLITE_DATA_DIR} (PGLITE_DATA_DIR)`;
}

/**
 * The embedded platform's queue; with a remote platform, one of the framework's own over its
 * database (it works in this process: nothing else runs the framework's jobs).
 */
async function frameworkJobQueue(database: Database): Promise<JobQueue> {
  if (env.PLATFORM_BASE_URL && env.PLATFORM_API_KEY) {
    const { createJobQueue } = await import("../platform/embedding");
    const jobs = createJobQueue({ database, work: true });
    await jobs.start();
    closeOnExit(() => jobs.stop());
    return jobs;
  }
  const { getEmbeddedPlatformDeps } = await import("./embedded-platform");
  const deps = getEmbeddedPlatformDeps();
  const runtime = await deps.runtime();
  // The embedded platform drains as a standalone one does: its worker hands its runs back, its run
  // streams end; it closes before the database.
  onAppDrain((timeoutMs) => runtime.drain(timeoutMs));
  closeOnExit(() => deps.close());
  return runtime.jobs;
}
