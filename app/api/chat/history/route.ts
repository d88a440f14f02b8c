// GET /api/chat/history?agent=: the member's past conversations with the chat's agent (the bridge:
// server/framework/chat/bridge.ts).
import { chatHandlers } from "@/server/framework/chat/handlers";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export const GET = (request: Request) => chatHandlers.history(request);
