// /healthz and /readyz of the Next.js app (app/healthz, app/readyz), for the same load balancers and
// orchestrators as the platform's processes (server/platform/health.ts). With the embedded platform the
// app is that platform's process too (role all): its readiness is the platform's. On a remote platform
// the app needs its own database (sessions, tenants) with every migration applied.
import { env } from "@/lib/env";
import { getDb } from "@/server/shared/db";
import { getEmbeddedPlatformDeps } from "@/server/framework/embedded-platform";
import { createHealth, type Health } from "@/server/platform/health";

let health: Health | undefined;

export function frameworkHealth(): Health {
  health ??= env.PLATFORM_BASE_URL ? createHealth({ database: getDb }, "framework") : createHealth(getEmbeddedPlatformDeps(), "all");
  return health;
}
