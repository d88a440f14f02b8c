// POST /api/embed/token {origin, agent?, tenant?}: a ten-minute embed token for the signed-in member,
// for a host page origin their tenant allows (docs/embedding.md). 401 signed out, 403 for an origin
// the tenant does not allow.
import { z } from "zod";
import { getSession } from "@/server/auth/session";
import { getDb } from "@/server/db";
import { EmbedMintRefused, mintEmbedToken } from "@/server/embed/mint";
import { resolveActiveMembership } from "@/server/tenancy/tenants";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

const Body = z.object({
  origin: z.string().min(1).max(2048),
  agent: z.string().trim().min(1).max(255).optional(),
  /** The tenant's slug; the active tenant (the inlay_tenant cookie, else the first) when omitted. */
  tenant: z.string().min(1).max(100).optional(),
});

const noStore = { "cache-control": "no-store" };

export async function POST(request: Request) {
  const session = await getSession();
  if (!session?.user.id) return Response.json({ error: { message: "sign in first" } }, { status: 401, headers: noStore });
  const parsed = Body.safeParse(await request.json().catch(() => undefined));
  if (!parsed.success) {
    return Response.json({ error: { message: z.prettifyError(parsed.error) } }, { status: 422, headers: noStore });
  }
  const { prisma } = await getDb();
  const cookie = request.headers.get("cookie")?.match(/(?:^|;\s*)inlay_tenant=([^;]+)/)?.[1];
  const { memberships, active } = await resolveActiveMembership(prisma, session.user.id, parsed.data.tenant ?? (cookie && decodeURIComponent(cookie)));
  const membership = parsed.data.tenant ? memberships.find((each) => each.tenant.slug === parsed.data.tenant) : active;
  if (!membership) return Response.json({ error: { message: "no such tenant" } }, { status: 404, headers: noStore });
  try {
    const { token, expiresAt } = await mintEmbedToken(prisma, {
      tenantId: membership.tenant.id,
      userId: session.user.id,
      origin: parsed.data.origin,
      agent: parsed.data.agent,
    });
    return Response.json({ token, expires_at: expiresAt.toISOString(), tenant: membership.tenant.slug }, { headers: noStore });
  } catch (error) {
    if (error instanceof EmbedMintRefused) {
      return Response.json({ error: { message: error.message, code: error.reason } }, { status: error.reason === "invalid_origin" ? 422 : 403, headers: noStore });
    }
    throw error;
  }
}
