// GET /api/chat/commands?agent=: what the composer's `/` picker offers (the bridge: server/framework/chat/bridge.ts).
import { chatHandlers } from "@/server/framework/chat/handlers";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export const GET = (request: Request) => chatHandlers.commands(request);
