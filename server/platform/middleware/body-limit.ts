// The JSON body limit. A body with a Content-Length (and no Transfer-Encoding) is judged by that header
// alone, as hono's bodyLimit judges it, but without asking for the request's body stream: on
// @hono/node-server that builds a full web Request, and the route's c.req.json() then reads the body
// through web streams instead of straight from the socket (about 0.1 ms a request). A body sent
// without a length is counted as it is read, by hono's bodyLimit.
import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";

export function jsonBodyLimit(maxSize: number, onError: (c: Context) => never): MiddlewareHandler {
  const counted = bodyLimit({ maxSize, onError });
  return (c, next) => {
    const length = c.req.header("content-length");
    if (length === undefined || c.req.header("transfer-encoding") !== undefined) return counted(c, next);
    if (Number.parseInt(length, 10) > maxSize) onError(c);
    return next();
  };
}
