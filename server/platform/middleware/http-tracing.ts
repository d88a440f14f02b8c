// A server span per request while tracing is on (observability/tracing.ts), named by route template.
// A caller's traceparent is honoured, so a vendor's own trace can include the platform's work.
// url.path is recorded without the secrets a path may carry (http/request-labels.ts).
import type { MiddlewareHandler } from "hono";
import { addLogContext } from "@/lib/log-context";
import { redactedPath, routeLabel } from "../http/request-labels";
import { contextFromTraceparent, inSpan, SpanKind, tracingEnabled } from "../observability/tracing";

export const httpTracing: MiddlewareHandler = async (c, next) => {
  if (!tracingEnabled()) return next();
  const method = c.req.method;
  const parent = contextFromTraceparent(c.req.header("traceparent"), { tracestate: c.req.header("tracestate") ?? "" });
  await inSpan(method, { kind: SpanKind.SERVER, parent, attributes: { "http.request.method": method, "url.path": redactedPath(c.req.path) } }, async (span) => {
    // The request's lines carry its trace, as the lines of the passes of a run it starts do.
    if (span) addLogContext({ traceId: span.spanContext().traceId });
    await next();
    const route = routeLabel(c);
    span?.updateName(`${method} ${route}`);
    span?.setAttributes({ "http.route": route, "http.response.status_code": c.res.status, "inlay.request_id": String(c.get("requestId") ?? "") });
  });
};
