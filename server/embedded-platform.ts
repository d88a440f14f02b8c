// The embedded platform: one Hono app per process, shared by the /api/v2 route and the framework's
// in-process connection (server/tenancy/platform-connection.ts), so both use the same runtime
// (worker, event bus, job queue) rather than two.
import { getDb } from "@/server/db";
import { demoAppPlatformSettings } from "@/server/demo-app/demo-app";
import { publicOrigin } from "@/server/public-origin";
import { createPlatformApp } from "@/server/platform/app";
import { platformDepsFromEnv } from "@/server/platform/config";
import type { PlatformApp, PlatformDeps } from "@/server/platform/context";
import { handleRoute } from "@/server/http/route-member";
import { developmentOperatorKeySha256 } from "@/server/tenancy/operator-key";
import { ledgerWebhookResponse, ledgerWebhookUrl } from "@/server/tenancy/run-ledger-webhook";

const globalForPlatform = globalThis as unknown as { inlayEmbeddedPlatform?: { app: PlatformApp; deps: PlatformDeps } };

function embedded() {
  if (!globalForPlatform.inlayEmbeddedPlatform) {
    // In development the owner's credit form works without INLAY_OPERATOR_KEY: see operator-key.ts.
    // And connections have an app to connect: the demo app this process serves (server/demo-app).
    // The framework's run ledger gets its run webhooks in-process (run-ledger-webhook.ts).
    const deps = platformDepsFromEnv(getDb, undefined, {
      operatorKeySha256: developmentOperatorKeySha256(),
      demoApp: demoAppPlatformSettings(publicOrigin()),
      inProcessWebhooks: [{ url: ledgerWebhookUrl(), receive: (request) => handleRoute(() => ledgerWebhookResponse(request)) }],
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
