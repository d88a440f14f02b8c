// The embedded platform: one Hono app per process, shared by the /api/v2 route and the framework's
// in-process connection (server/framework/tenancy/platform-connection.ts), so both use the same runtime
// (worker, event bus, job queue) rather than two.
import { getDb } from "@/server/shared/db";
import { demoAppPlatformSettings } from "@/server/framework/demo-app/demo-app";
import { publicOrigin } from "@/server/shared/public-origin";
import { createPlatformApp, platformDepsFromEnv, type PlatformApp, type PlatformConfig, type PlatformDeps } from "@/server/platform/embedding";
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

function embedded() {
  if (!globalForPlatform.inlayEmbeddedPlatform) {
    // In development the owner's credit form works without INLAY_OPERATOR_KEY: see operator-key.ts.
    // And connections have an app to connect: the demo app this process serves (server/framework/demo-app).
    const deps = platformDepsFromEnv(getDb, undefined, {
      operatorKeySha256: developmentOperatorKeySha256(),
      demoApp: demoAppPlatformSettings(publicOrigin()),
      inProcessWebhooks,
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
