// How a request is named outside its response (metrics, spans, log lines): by the route template it
// matched, and by its path only with the secrets a path can carry replaced. An inbound hook's token
// starts runs for whoever holds it; a receipt page's or a payment reference's token, an invite's and
// an authorization's state are as good as credentials to whoever reads them in a tracing backend.
import type { Context } from "hono";
import { routePath } from "hono/route";

/** The matched route's template (`/api/v2/runs/:run_id`), "unmatched" for a request no route took. */
export function routeLabel(c: Context): string {
  const route = routePath(c, -1);
  return route.endsWith("*") ? "unmatched" : route;
}

// The segment after each of these is a secret (the path parameters token, invite, state, reference);
// tests/unit/platform/request-labels.test.ts holds every such route of /openapi.json to this list.
const SECRET_AFTER = /(\/(?:hooks\/agents|hooks\/tasks|billing\/receipt-pages|billing\/portal-pages|billing\/pay|teams\/invites|authorizations)\/)[^/]+/g;

/** `path` with its secret segments replaced, matched by a route or not. */
export const redactedPath = (path: string): string => path.replace(SECRET_AFTER, "$1{redacted}");
