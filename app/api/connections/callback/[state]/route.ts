// GET /api/connections/callback/<state>: the platform's redirect after an app's OAuth consent.
import { getSession } from "@/server/framework/auth/session";
import { handleConnectionCallback } from "@/server/framework/connections/callback";
import { getDb } from "@/server/shared/db";
import { getPlatformConnection } from "@/server/framework/platform";
import { timedRoute } from "@/server/framework/observability/metrics";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

async function get(request: Request, { params }: { params: Promise<{ state: string }> }) {
  const [{ state }, { prisma }] = await Promise.all([params, getDb()]);
  return handleConnectionCallback(request, state, {
    prisma,
    connect: () => getPlatformConnection(prisma),
    sessionUserId: async () => (await getSession())?.user.id,
  });
}

export const GET = timedRoute("/api/connections/callback/[state]", get);
