// POST /api/chat/actions: approve or deny a tool call (once, for the run, or always), answer a
// question or a plan, or cancel (Stop) the chat's run.
import { chatHandlers } from "@/server/framework/chat/handlers";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export const POST = (request: Request) => chatHandlers.act(request);
