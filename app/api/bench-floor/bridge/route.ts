// POST /api/bench-floor/bridge: the second floor of the chat path for `npm run bench -- chat-burst
// chat-held`: the chat bridge (server/framework/chat/bridge.ts) over this app's platform with none of
// the framework around it. The caller's own platform key (Authorization: Bearer) and a numeric agent
// id; no session, tenant, admission, ledger or agent copy. What an app that embeds the platform and
// answers in AI SDK's UI message stream pays at least, so the bench can tell the framework's own cost
// from the platform's and the bridge's. 404 unless INLAY_BENCH_FLOOR is set, as the floor route.
import { createPlatformClient } from "@inlay/core/platform-client";
import { env } from "@/lib/env";
import { createChatHandlers } from "@/server/framework/chat/bridge";
import { ChatRefusal, type ChatContext } from "@/server/framework/chat/context";
import { getPlatformConnection } from "@/server/framework/platform";
import { getDb } from "@/server/shared/db";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

const handlers = createChatHandlers(async (request): Promise<ChatContext | null> => {
  const apiKey = /^Bearer (\S+)$/.exec(request.headers.get("authorization") ?? "")?.[1];
  if (!apiKey) return null;
  const connection = await getPlatformConnection((await getDb()).prisma);
  return {
    client: createPlatformClient({ ...connection.options, apiKey }),
    agentId: async (agent) => {
      if (!/^\d+$/.test(agent)) throw new ChatRefusal({ kind: "not_found", message: "The bridge floor takes a numeric agent id." });
      return Number(agent);
    },
    subject: { tenantId: "bench-floor", userId: "bench-floor", via: "embed" },
  };
});

export async function POST(request: Request): Promise<Response> {
  if (!env.INLAY_BENCH_FLOOR) return new Response(null, { status: 404 });
  return handlers.send(request);
}
