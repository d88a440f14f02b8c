// POST /api/embed/token {origin, agent?, tenant?}: a ten-minute embed token for the signed-in member,
// for a host page origin their tenant allows (docs/embedding.md). 401 signed out, 404 for a tenant
// they are not in, 403 for an origin the tenant does not allow (422 for one that is not an origin).
import { z } from "zod";
import { EmbedMintRefused, mintEmbedToken } from "@/server/framework/embed/mint";
import { handleRoute, parseBody, requireMember, requireSignedIn, RouteError, routeJson } from "@/server/framework/http/route-member";
import { timedRoute } from "@/server/framework/observability/metrics";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

const Body = z.object({
  origin: z.string().min(1).max(2048),
  agent: z.string().trim().min(1).max(255).optional(),
  /** The tenant's slug; the active tenant (the inlay_tenant cookie, else the first) when omitted. */
  tenant: z.string().min(1).max(100).optional(),
});

export const POST = timedRoute("/api/embed/token", (request: Request) =>
  handleRoute(async () => {
    // Signed in before the body is read.
    const userId = await requireSignedIn();
    const body = await parseBody(request, Body);
    const member = await requireMember(request, { tenant: body.tenant, userId });
    try {
      const { token, expiresAt } = await mintEmbedToken(member.prisma, {
        tenantId: member.tenant.id,
        userId: member.userId,
        origin: body.origin,
        agent: body.agent,
      });
      return routeJson({ token, expires_at: expiresAt.toISOString(), tenant: member.tenant.slug });
    } catch (error) {
      if (error instanceof EmbedMintRefused) {
        throw new RouteError(error.reason === "invalid_origin" ? 422 : 403, error.message, { code: error.reason });
      }
      throw error;
    }
  }));
