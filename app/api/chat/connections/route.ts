// GET /api/chat/connections: the apps the chatting member may connect, with their status and
// connections (what <InlayConnections> lists; connecting and disconnecting go through /api/chat/actions).
import { chatHandlers } from "@/server/framework/chat/handlers";
import { timedRoute } from "@/server/framework/observability/metrics";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export const GET = timedRoute("/api/chat/connections", (request: Request) => chatHandlers.connections(request));
export const OPTIONS = timedRoute("/api/chat/connections", (request: Request) => chatHandlers.preflight(request));
