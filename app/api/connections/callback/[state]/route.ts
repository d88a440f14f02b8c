// GET /api/connections/callback/<state>: the platform's redirect after an app's OAuth consent.
import { getSession } from "@/server/framework/auth/session";
import { handleConnectionCallback } from "@/server/framework/connections/callback";
import { getDb } from "@/server/shared/db";
import { getPlatformConnection } from "@/server/framework/platform";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export async function GET(request: Request, { params }: { params: Promise<{ state: string }> }) {
  const [{ state }, { prisma }] = await Promise.all([params, getDb()]);
  return handleConnectionCallback(request, state, {
    prisma,
    connect: () => getPlatformConnection(prisma),
    sessionUserId: async () => (await getSession())?.user.id,
  });
}
