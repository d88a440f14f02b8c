// Mounts the self-hosted Agent Platform API (server/platform) at /api/v2.
import { getDb } from "@/server/db";
import { createPlatformApp } from "@/server/platform/app";
import { platformDepsFromEnv } from "@/server/platform/config";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const app = createPlatformApp(platformDepsFromEnv(getDb));
const handler = (request: Request) => app.fetch(request);

export { handler as GET, handler as POST, handler as PUT, handler as PATCH, handler as DELETE, handler as OPTIONS, handler as HEAD };
