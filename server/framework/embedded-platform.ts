// The embedded platform: one Hono app per process, shared by the /api/v2 route and the framework's
// in-process connection (server/framework/tenancy/platform-connection.ts), so both use the same runtime
// (worker, event bus, job queue) rather than two.
import { existsSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { env } from "@/lib/env";
import { logger } from "@/lib/logger";
import { getDb } from "@/server/shared/db";
import { demoAppPlatformSettings } from "@/server/framework/demo-app/demo-app";
import { publicOrigin } from "@/server/shared/public-origin";
import {
  createPlatformApp,
  platformDepsFromEnv,
  startWorkerThread,
  wantsWorkerThread,
  type DemoAppSettings,
  type PlatformApp,
  type PlatformConfig,
  type PlatformDeps,
  type WorkerThread,
} from "@/server/platform/embedding";
import { developmentOperatorKeySha256 } from "@/server/framework/tenancy/operator-key";

const globalForPlatform = globalThis as unknown as { inlayEmbeddedPlatform?: { app: PlatformApp; deps: PlatformDeps } };

type InProcessWebhook = NonNullable<PlatformConfig["inProcessWebhooks"]>[number];
/**
 * Endpoints of this process the embedded platform hands webhooks to in-process, read at each delivery:
 * the framework's run ledger adds its own when it connects (server/framework/platform.ts), so this file
 * need not know the ledger, which itself needs the connection made over this platform.
 */
const inProcessWebhooks: InProcessWebhook[] = [];

export function receiveWebhooksInProcess(target: InProcessWebhook): void {
  const index = inProcessWebhooks.findIndex((each) => each.url === target.url);
  if (index === -1) inProcessWebhooks.push(target);
  else inProcessWebhooks[index] = target;
}

/** The compiled worker thread `npm run build` writes (server/platform-build.ts). */
const WORKER_THREAD_ENTRY = path.join(process.cwd(), "dist", "platform", "worker-thread.js");

/**
 * On PostgreSQL, `next start` executes the embedded platform's standard runs on a worker thread, as
 * `npm run platform` does in role all (docs/design.md, Roles): chat turns and their runs then use two
 * cores. Only on the compiled build, whose entry matches this code; PGlite stays on one thread.
 */
function embeddedWorkerThread(demoApp: DemoAppSettings | undefined): Promise<WorkerThread> | undefined {
  const databaseUrl = env.DATABASE_URL;
  if (!wantsWorkerThread(env.INLAY_ROLE, databaseUrl, env.INLAY_WORKER_THREAD)) return undefined;
  if (env.NODE_ENV !== "production" || !existsSync(WORKER_THREAD_ENTRY)) return undefined;
  return startWorkerThread({
    entry: pathToFileURL(WORKER_THREAD_ENTRY),
    localBaseUrl: `${publicOrigin()}/api/v2`,
    databaseUrl,
    ...(demoApp ? { demoApp } : {}),
    // Crashed: nothing here executes standard runs any more; the app drains and exits 1 to be restarted.
    onExit: (error) => {
      logger.error({ err: error }, "the embedded platform's worker thread ended: stopping the app");
      process.exitCode = 1;
      process.kill(process.pid, "SIGTERM");
    },
  });
}

function embedded() {
  if (!globalForPlatform.inlayEmbeddedPlatform) {
    // In development the owner's credit form works without INLAY_OPERATOR_KEY: see operator-key.ts.
    // And connections have an app to connect: the demo app this process serves (server/framework/demo-app).
    const demoApp = demoAppPlatformSettings(publicOrigin());
    const workerThread = embeddedWorkerThread(demoApp);
    const deps = platformDepsFromEnv(getDb, undefined, {
      operatorKeySha256: developmentOperatorKeySha256(),
      demoApp,
      inProcessWebhooks,
      ...(workerThread ? { workerThread } : {}),
    });
    globalForPlatform.inlayEmbeddedPlatform = { app: createPlatformApp(deps), deps };
  }
  return globalForPlatform.inlayEmbeddedPlatform;
}

export function getEmbeddedPlatformApp(): PlatformApp {
  return embedded().app;
}

/** The embedded platform's dependencies: the framework registers its jobs on their runtime's queue. */
export function getEmbeddedPlatformDeps(): PlatformDeps {
  return embedded().deps;
}
