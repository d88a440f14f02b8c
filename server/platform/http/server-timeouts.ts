// Timeouts of every HTTP server Inlay runs, set for what sits in front of it. A load balancer (and a
// client's connection pool) reuses an idle connection until its own idle timeout, commonly 60 s; the
// server must never close that connection first, or a request written at that moment meets a closed
// socket (a reset at the client, a 502 at the balancer). Node's default keep-alive of 5 s did exactly
// that under load. Headers must be allowed longer than the keep-alive (Node's rule).
import type { Server } from "node:http";

export const KEEP_ALIVE_TIMEOUT_MS = 65_000;
export const HEADERS_TIMEOUT_MS = 66_000;

export function applyServerTimeouts(server: Pick<Server, "keepAliveTimeout" | "headersTimeout">): void {
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = HEADERS_TIMEOUT_MS;
}
