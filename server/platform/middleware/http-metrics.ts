// Each request's duration by route template, method and status (observability/metrics.ts). The
// template, not the path, so ids never become labels; a request no route matched counts as "unmatched".
import type { MiddlewareHandler } from "hono";
import { routeLabel } from "../http/request-labels";
import { httpDuration } from "../observability/metrics";

export const httpMetrics: MiddlewareHandler = async (c, next) => {
  const started = performance.now();
  try {
    await next();
  } finally {
    httpDuration.observe(
      { method: c.req.method, route: routeLabel(c), status: String(c.res.status) },
      (performance.now() - started) / 1000,
    );
  }
};
