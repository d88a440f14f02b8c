// The worker thread of a process in role all on PostgreSQL (runtime/worker-thread.ts): role worker's
// runtime under the process's lease owner, executing the standard runs the main thread hands it and
// claiming those that wait. Compiled as dist/platform/worker-thread.js beside standalone.js.
import { flushLogs, logger } from "@/lib/logger";
import { getDb, openDatabaseWhenReachable, setProcessDatabase } from "@/server/shared/db";
import { platformDepsFromEnv } from "./config";
import { startTracingFromEnv, stopTracing } from "./observability/tracing";
import { serveWorkerThread, workerThreadData } from "./runtime/worker-thread";

const data = workerThreadData();
if (!data) throw new Error("worker-thread-entry runs only as the worker thread of a process in role all");
// Every line this thread logs says so: a run's pass ran here, its admission on the main thread.
logger.setBindings({ thread: "worker" });
await startTracingFromEnv("worker");
// The main thread opened (and migrated) it already: this is the thread's own pool on it.
const database = await openDatabaseWhenReachable({ url: data.databaseUrl });
setProcessDatabase(database);
const deps = platformDepsFromEnv(getDb, "worker", {
  localBaseUrl: data.localBaseUrl,
  thread: { owner: data.owner },
  ...(data.demoApp ? { demoApp: data.demoApp } : {}),
});
await serveWorkerThread(deps, async () => {
  await database.close();
  await stopTracing().catch(() => {});
  flushLogs();
});
