// GET /api/chat/history?agent=: the member's past conversations with the chat's agent (the bridge:
// server/framework/chat/bridge.ts).
import { chatHandlers } from "@/server/framework/chat/handlers";
import { timedRoute } from "@/server/framework/observability/metrics";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export const GET = timedRoute("/api/chat/history", (request: Request) => chatHandlers.history(request));
export const OPTIONS = timedRoute("/api/chat/history", (request: Request) => chatHandlers.preflight(request));
