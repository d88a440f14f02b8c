// Mounts the self-hosted Agent Platform API (server/platform) at /api/v2.
import { getEmbeddedPlatformApp } from "@/server/framework/embedded-platform";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const handler = (request: Request) => getEmbeddedPlatformApp().fetch(request);

export { handler as GET, handler as POST, handler as PUT, handler as PATCH, handler as DELETE, handler as OPTIONS, handler as HEAD };
