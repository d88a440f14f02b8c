// POST /api/chat/actions: approve or deny a tool call (once, for the run, or always), answer a
// question or a plan, or cancel (Stop) the chat's run.
import { chatHandlers } from "@/server/framework/chat/handlers";
import { timedRoute } from "@/server/framework/observability/metrics";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export const POST = timedRoute("/api/chat/actions", (request: Request) => chatHandlers.act(request));
export const OPTIONS = timedRoute("/api/chat/actions", (request: Request) => chatHandlers.preflight(request));
