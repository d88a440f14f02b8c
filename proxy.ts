// Next.js proxy (Node.js runtime), for the embed surface only: its CSP frame-ancestors comes from the
// tenant's allowed embed origins (server/framework/embed/origins.ts), so only those sites can frame the chat
// (a host it does not allow gets a scriptless page saying so, which anyone may frame).
// The page has no inline script (server/framework/embed/page.ts), so scripts are held to its own origin: an
// injection could not run code beside the embed token the page keeps in memory.
import { NextResponse, type NextRequest } from "next/server";
import { getDb } from "@/server/shared/db";
import { embedFraming } from "@/server/framework/embed/origins";
import { normalizeOrigin } from "@/server/framework/embed/tokens";

export async function proxy(request: NextRequest) {
  let csp = "frame-ancestors 'self'; script-src 'self'; object-src 'none'; base-uri 'none'";
  try {
    const { prisma } = await getDb();
    const tenant = request.nextUrl.searchParams.get("tenant") ?? undefined;
    const host = request.nextUrl.searchParams.get("host");
    const framing = await embedFraming(prisma, tenant, host && normalizeOrigin(host) ? host : undefined);
    if (framing.hostAllowed === false) {
      // A host the tenant does not allow gets a page that only says so (app/embed/[agent]/route.ts):
      // any site may frame it, so the visitor reads why instead of a blank frame, and no script runs.
      csp = "frame-ancestors *; script-src 'none'; object-src 'none'; base-uri 'none'";
    } else {
      csp = `frame-ancestors ${framing.frameAncestors}; script-src 'self'; object-src 'none'; base-uri 'none'`;
    }
  } catch {
    // No database: nobody else may frame the page.
  }
  const response = NextResponse.next();
  response.headers.set("content-security-policy", csp);
  response.headers.set("referrer-policy", "strict-origin-when-cross-origin");
  return response;
}

export const config = { matcher: "/embed/:path*" };
