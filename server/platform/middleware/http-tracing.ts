// A server span per request while tracing is on (observability/tracing.ts), named by route template.
// A caller's traceparent is honoured, so a vendor's own trace can include the platform's work.
import type { MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import { contextFromTraceparent, inSpan, SpanKind, tracingEnabled } from "../observability/tracing";

export const httpTracing: MiddlewareHandler = async (c, next) => {
  if (!tracingEnabled()) return next();
  const method = c.req.method;
  const parent = contextFromTraceparent(c.req.header("traceparent"), { tracestate: c.req.header("tracestate") ?? "" });
  await inSpan(method, { kind: SpanKind.SERVER, parent, attributes: { "http.request.method": method, "url.path": c.req.path } }, async (span) => {
    await next();
    const route = routePath(c, -1);
    span?.updateName(`${method} ${route.endsWith("*") ? "unmatched" : route}`);
    span?.setAttributes({ "http.route": route, "http.response.status_code": c.res.status, "inlay.request_id": String(c.get("requestId") ?? "") });
  });
};
