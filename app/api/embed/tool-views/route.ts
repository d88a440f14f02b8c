// GET /api/embed/tool-views: the active tenant's tool views (members).
// PUT /api/embed/tool-views {views: {<tool>: {title, fields, allowLabel?}}}: replaces them (tenant
// admins). The iframe embed draws those tools' calls with them (server/framework/embed/tool-views.ts).
import { z } from "zod";
import { getToolViews, setToolViews } from "@/server/framework/embed/tool-views";
import { handleRoute, parseBody, requireMember, routeJson } from "@/server/framework/http/route-member";
import { timedRoute } from "@/server/framework/observability/metrics";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

// The views themselves are checked by the service (their contract names the field at fault).
const Body = z.object({ views: z.record(z.string(), z.unknown()) });

export const GET = timedRoute("/api/embed/tool-views", (request: Request) =>
  handleRoute(async () => {
    const member = await requireMember(request);
    return routeJson({ views: await getToolViews(member.prisma, member.tenant.id) });
  }));

export const PUT = timedRoute("/api/embed/tool-views", (request: Request) =>
  handleRoute(async () => {
    const member = await requireMember(request, { admin: true });
    const { views } = await parseBody(request, Body);
    return routeJson({ views: await setToolViews(member.prisma, member.tenant.id, views) });
  }));
