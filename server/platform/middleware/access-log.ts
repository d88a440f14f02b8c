// One access line per request, once its response is ready (a stream's: when it starts): method, route
// template, status and duration; the log context adds the request id and, once known, account and run.
// The template, not the path: a path can carry a secret (http/request-labels.ts).
import type { MiddlewareHandler } from "hono";
import { logger } from "@/lib/logger";
import { routeLabel } from "../http/request-labels";

export const accessLog: MiddlewareHandler = async (c, next) => {
  const started = performance.now();
  try {
    await next();
  } finally {
    logger.info({ method: c.req.method, route: routeLabel(c), status: c.res.status, ms: Math.round(performance.now() - started) }, "request");
  }
};
