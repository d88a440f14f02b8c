// A response sent before the request's body arrived whole (413 for an oversized body; 401, 404, 405 or
// 415 ahead of a large one) ends the connection with `Connection: close`. Kept open, the server would
// have to drain the rest of the body, and @hono/node-server gives up on a drain after 500 ms or 64 MB
// by dropping the socket, taking down whatever request the client had queued behind on it: one that
// may have run while its client saw only a socket error. Closed cleanly, the client knows not to reuse
// the connection and sends its next request on a fresh one.
import type { IncomingMessage } from "node:http";
import type { MiddlewareHandler } from "hono";

interface NodeBindings {
  incoming?: IncomingMessage;
}

export const closeOnUnreadBody: MiddlewareHandler = async (c, next) => {
  await next();
  // Only @hono/node-server hands over the request; inside Next.js its server owns the connection.
  const incoming = (c.env as NodeBindings | undefined)?.incoming;
  // `complete`: the parser has seen the message's end, so the rest (if unread) is buffered and drains at once.
  if (incoming && !incoming.complete) c.header("connection", "close");
};
