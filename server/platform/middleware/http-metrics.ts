// Each request's duration by route template, method and status (observability/metrics.ts). The
// template, not the path, so ids never become labels; a request no route matched counts as "unmatched".
import type { MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import { httpDuration } from "../observability/metrics";

export const httpMetrics: MiddlewareHandler = async (c, next) => {
  const started = performance.now();
  try {
    await next();
  } finally {
    const route = routePath(c, -1);
    httpDuration.observe(
      { method: c.req.method, route: route.endsWith("*") ? "unmatched" : route, status: String(c.res.status) },
      (performance.now() - started) / 1000,
    );
  }
};
