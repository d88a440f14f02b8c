// GET /api/chat/commands?agent=: what the composer's `/` picker offers (the bridge: server/framework/chat/bridge.ts).
import { chatHandlers } from "@/server/framework/chat/handlers";
import { timedRoute } from "@/server/framework/observability/metrics";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export const GET = timedRoute("/api/chat/commands", (request: Request) => chatHandlers.commands(request));
export const OPTIONS = timedRoute("/api/chat/commands", (request: Request) => chatHandlers.preflight(request));
