// GET /api/chat/conversation?agent=&runId=: one past conversation as chat messages, rebuilt from the
// run's event log, for the chat to show and continue (the bridge: server/framework/chat/bridge.ts).
import { chatHandlers } from "@/server/framework/chat/handlers";
import { timedRoute } from "@/server/framework/observability/metrics";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export const GET = timedRoute("/api/chat/conversation", (request: Request) => chatHandlers.conversation(request));
export const OPTIONS = timedRoute("/api/chat/conversation", (request: Request) => chatHandlers.preflight(request));
