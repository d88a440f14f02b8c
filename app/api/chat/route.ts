// POST /api/chat: send a message (starts a run, or replies on the chat's run) and stream the answer as
// an AI SDK UI message stream. GET /api/chat?runId=&cursor=: reattach to the run's current request
// (204 when there is nothing to resume). The bridge: server/framework/chat/bridge.ts.
import { chatHandlers } from "@/server/framework/chat/handlers";
import { timedRoute } from "@/server/framework/observability/metrics";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export const POST = timedRoute("/api/chat", (request: Request) => chatHandlers.send(request));
export const GET = timedRoute("/api/chat", (request: Request) => chatHandlers.resume(request));
export const OPTIONS = timedRoute("/api/chat", (request: Request) => chatHandlers.preflight(request));
