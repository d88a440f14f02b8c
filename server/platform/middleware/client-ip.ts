// The caller's IP, for the limits that apply per IP.
import type { Context } from "hono";

interface NodeBindings {
  incoming?: { socket?: { remoteAddress?: string } };
}

export function clientIp(c: Context, trustProxy: boolean): string {
  const forwarded = c.req.header("x-forwarded-for");
  const hops = forwarded?.split(",").map((hop) => hop.trim()).filter(Boolean) ?? [];
  if (trustProxy && hops[0]) return hops[0];
  // @hono/node-server (the standalone platform) hands us the socket.
  const socket = (c.env as NodeBindings | undefined)?.incoming?.socket?.remoteAddress;
  if (socket) return socket;
  // Inside Next.js there is no socket; its server appends the peer address as the last hop.
  return hops.at(-1) ?? "unknown";
}
