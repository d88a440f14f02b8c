// GET /api/embed/origins: the active tenant's allowed embed origins (members).
// PUT /api/embed/origins {origins: string[]}: replaces them (tenant admins). They become the embed
// page's CSP frame-ancestors and the only origins embed tokens are minted for.
import { z } from "zod";
import { getSession } from "@/server/auth/session";
import { getDb } from "@/server/db";
import { getAllowedOrigins, setAllowedOrigins } from "@/server/embed/origins";
import { TenancyError } from "@/server/tenancy/errors";
import { resolveActiveMembership } from "@/server/tenancy/tenants";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

const noStore = { "cache-control": "no-store" };
const Body = z.object({ origins: z.array(z.string().max(2048)).max(20) });

async function activeMembership(request: Request) {
  const session = await getSession();
  if (!session?.user.id) return null;
  const { prisma } = await getDb();
  const cookie = request.headers.get("cookie")?.match(/(?:^|;\s*)inlay_tenant=([^;]+)/)?.[1];
  const { active } = await resolveActiveMembership(prisma, session.user.id, cookie && decodeURIComponent(cookie));
  return active ? { prisma, active } : null;
}

export async function GET(request: Request) {
  const found = await activeMembership(request);
  if (!found) return Response.json({ error: { message: "sign in first" } }, { status: 401, headers: noStore });
  return Response.json({ origins: await getAllowedOrigins(found.prisma, found.active.tenant.id) }, { headers: noStore });
}

export async function PUT(request: Request) {
  const found = await activeMembership(request);
  if (!found) return Response.json({ error: { message: "sign in first" } }, { status: 401, headers: noStore });
  if (found.active.role !== "admin") return Response.json({ error: { message: "tenant admins only" } }, { status: 403, headers: noStore });
  const parsed = Body.safeParse(await request.json().catch(() => undefined));
  if (!parsed.success) return Response.json({ error: { message: z.prettifyError(parsed.error) } }, { status: 422, headers: noStore });
  try {
    return Response.json({ origins: await setAllowedOrigins(found.prisma, found.active.tenant.id, parsed.data.origins) }, { headers: noStore });
  } catch (error) {
    if (error instanceof TenancyError) return Response.json({ error: { message: error.message, field: error.field } }, { status: 422, headers: noStore });
    throw error;
  }
}
