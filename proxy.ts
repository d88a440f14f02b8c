// Next.js proxy (Node.js runtime), for the embed surface only: its CSP frame-ancestors comes from the
// tenant's allowed embed origins (server/embed/origins.ts), so only those sites can frame the chat.
// The page has no inline script (server/embed/page.ts), so scripts are held to its own origin: an
// injection could not run code beside the embed token the page keeps in memory.
import { NextResponse, type NextRequest } from "next/server";
import { getDb } from "@/server/db";
import { frameAncestorsFor } from "@/server/embed/origins";

export async function proxy(request: NextRequest) {
  let ancestors = "'self'";
  try {
    const { prisma } = await getDb();
    ancestors = await frameAncestorsFor(prisma, request.nextUrl.searchParams.get("tenant") ?? undefined);
  } catch {
    // No database: nobody else may frame the page.
  }
  const response = NextResponse.next();
  response.headers.set("content-security-policy", `frame-ancestors ${ancestors}; script-src 'self'; object-src 'none'; base-uri 'none'`);
  response.headers.set("referrer-policy", "strict-origin-when-cross-origin");
  return response;
}

export const config = { matcher: "/embed/:path*" };
