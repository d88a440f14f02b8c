// GET /api/chat/quota: the chatting member's runs and cost this month against their caps and the
// workspace's limits (what <InlayQuota> shows; the console's own meter reads the same through tRPC).
import { chatHandlers } from "@/server/framework/chat/handlers";
import { timedRoute } from "@/server/framework/observability/metrics";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export const GET = timedRoute("/api/chat/quota", (request: Request) => chatHandlers.quota(request));
export const OPTIONS = timedRoute("/api/chat/quota", (request: Request) => chatHandlers.preflight(request));
