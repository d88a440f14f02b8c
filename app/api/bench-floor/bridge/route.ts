// POST /api/bench-floor/bridge: the second floor of the chat path for `npm run bench -- chat-burst
// chat-held`: the chat bridge (server/framework/chat/bridge.ts) over this app's platform with none of
// the framework around it: the caller's own platform key (Authorization: Bearer) and agent (agentByName:
// the bench sends the id); no session, tenant, admission, ledger or agent copy. What an app that embeds
// the platform and answers in AI SDK's UI message stream pays at least, so the bench can tell the
// framework's own cost from the platform's and the bridge's. 404 unless INLAY_BENCH_FLOOR is set, as the floor route.
import { createPlatformClient } from "@inlay/core/platform-client";
import { env } from "@/lib/env";
import { createChatHandlers } from "@/server/framework/chat/bridge";
import { agentByName, type ChatContext } from "@/server/framework/chat/context";
import { getPlatformConnection } from "@/server/framework/platform";
import { getDb } from "@/server/shared/db";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

const handlers = createChatHandlers(async (request): Promise<ChatContext | null> => {
  const apiKey = /^Bearer (\S+)$/.exec(request.headers.get("authorization") ?? "")?.[1];
  if (!apiKey) return null;
  const connection = await getPlatformConnection((await getDb()).prisma);
  const client = createPlatformClient({ ...connection.options, apiKey });
  return {
    client,
    agentId: (agent) => agentByName(client, agent),
    subject: { tenantId: "bench-floor", userId: "bench-floor", via: "embed" },
  };
});

export async function POST(request: Request): Promise<Response> {
  if (!env.INLAY_BENCH_FLOOR) return new Response(null, { status: 404 });
  return handlers.send(request);
}
