// The embedded platform: one Hono app per process, shared by the /api/v2 route and the framework's
// in-process connection (server/tenancy/platform-connection.ts), so both use the same runtime
// (executor, event bus, sweeper) rather than two.
import { getDb } from "@/server/db";
import { createPlatformApp } from "@/server/platform/app";
import { platformDepsFromEnv } from "@/server/platform/config";
import type { PlatformApp } from "@/server/platform/context";

const globalForPlatform = globalThis as unknown as { inlayEmbeddedPlatform?: PlatformApp };

export function getEmbeddedPlatformApp(): PlatformApp {
  globalForPlatform.inlayEmbeddedPlatform ??= createPlatformApp(platformDepsFromEnv(getDb));
  return globalForPlatform.inlayEmbeddedPlatform;
}
