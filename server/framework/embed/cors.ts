// The chat API across origins: a vendor's own page (@inlay/react, no iframe) calls /api/chat/* on
// Inlay's origin with an embed token in a header, never a cookie. A preflight names no tenant (the
// token comes only with the request after it), so it is answered for an origin some tenant allows;
// the request itself is then authenticated by its token, which is bound to one origin of one tenant
// (framework-context.ts refuses a browser Origin other than the token's). No credentials: cookies
// never go cross-origin, so a page elsewhere cannot act as a signed-in console user.
import { getDb } from "@/server/shared/db";
import { publicOrigin } from "@/server/shared/public-origin";
import { isOriginAllowedByAnyTenant } from "./repository";
import { normalizeOrigin } from "./tokens";

const ALLOWED_HEADERS = "content-type, x-inlay-embed-token, x-inlay-embed-origin";
/** What the chat reads of a response (the run a stream belongs to, how long a draining server asks to wait). */
const EXPOSED_HEADERS = "x-run-id, retry-after, x-inlay-draining";

/**
 * The request's Origin when it is another site's. A same-origin request (the console, the iframe) has
 * none or the app's own: NEXTAUTH_URL's, the request URL's, or the host it was sent to (Next builds the
 * request URL from its own hostname, which need not be the one the browser used).
 */
export function foreignOrigin(request: Request): string | undefined {
  const origin = request.headers.get("origin");
  if (!origin || origin === "null") return undefined;
  const normalized = normalizeOrigin(origin);
  if (!normalized) return undefined;
  const url = new URL(request.url);
  const host = request.headers.get("host");
  const own = [publicOrigin(), url.origin, ...(host ? [`${url.protocol}//${host}`] : [])];
  return own.includes(normalized) ? undefined : normalized;
}

/** OPTIONS: 204 with the CORS headers for an origin some tenant allows, else 403 without them. */
export async function corsPreflight(request: Request): Promise<Response> {
  const origin = foreignOrigin(request);
  const { prisma } = await getDb();
  if (!origin || !(await isOriginAllowedByAnyTenant(prisma, origin))) return new Response(null, { status: 403 });
  return new Response(null, {
    status: 204,
    headers: {
      "access-control-allow-origin": origin,
      "access-control-allow-methods": "GET, POST, OPTIONS",
      "access-control-allow-headers": ALLOWED_HEADERS,
      "access-control-max-age": "600",
      vary: "Origin",
    },
  });
}

/**
 * A route handler whose answers another site's page may read: a request with a foreign Origin and an
 * embed token gets that origin allowed (the token was checked against it by the handler; a refusal
 * is readable too, so the page can say why). Anything else is answered as it was.
 */
export function withCors(handler: (request: Request) => Promise<Response>): (request: Request) => Promise<Response> {
  return async (request) => {
    const response = await handler(request);
    const origin = foreignOrigin(request);
    if (!origin || !request.headers.get("x-inlay-embed-token")) return response;
    const headers = new Headers(response.headers);
    headers.set("access-control-allow-origin", origin);
    headers.set("access-control-expose-headers", EXPOSED_HEADERS);
    headers.append("vary", "Origin");
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  };
}
