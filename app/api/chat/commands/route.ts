// GET /api/chat/commands?agent=: what the composer's `/` picker offers (the bridge: server/chat/bridge.ts).
import { chatHandlers } from "@/server/chat/handlers";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export const GET = (request: Request) => chatHandlers.commands(request);
