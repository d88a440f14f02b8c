// GET /api/embed/origins: the active tenant's allowed embed origins (members).
// PUT /api/embed/origins {origins: string[]}: replaces them (tenant admins). They become the embed
// page's CSP frame-ancestors and the only origins embed tokens are minted for.
import { z } from "zod";
import { getAllowedOrigins, setAllowedOrigins } from "@/server/framework/embed/origins";
import { handleRoute, parseBody, requireMember, routeJson } from "@/server/framework/http/route-member";
import { timedRoute } from "@/server/framework/observability/metrics";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

const Body = z.object({ origins: z.array(z.string().max(2048)).max(20) });

export const GET = timedRoute("/api/embed/origins", (request: Request) =>
  handleRoute(async () => {
    const member = await requireMember(request);
    return routeJson({ origins: await getAllowedOrigins(member.prisma, member.tenant.id) });
  }));

export const PUT = timedRoute("/api/embed/origins", (request: Request) =>
  handleRoute(async () => {
    const member = await requireMember(request, { admin: true });
    const { origins } = await parseBody(request, Body);
    return routeJson({ origins: await setAllowedOrigins(member.prisma, member.tenant.id, origins) });
  }));
