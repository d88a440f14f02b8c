// GET /mcp-servers/oauth/callback (public): the default redirect_uri of tool servers' OAuth. The
// state completes the flow by itself; the person sees a short page.
import { ToolServerOAuthCallbackQuery } from "@inlay/core/schemas/tool-servers";
import type { PlatformApp } from "../../context";
import { handleToolServerOAuthCallback } from "../../services/tool-servers/tool-servers";
import { defineRoute } from "../define";
import { servicesOf } from "../request";

export const route = defineRoute({
  operationId: "toolServerOAuthCallback",
  method: "get",
  path: "/mcp-servers/oauth/callback",
  tags: ["mcp-servers"],
  summary: "OAuth redirect target of tool servers (for authorization servers, not API clients)",
  access: "public",
  // Authorization servers add parameters of their own (scope, iss, …).
  acceptAnyQuery: true,
  request: { query: ToolServerOAuthCallbackQuery },
  responses: {
    200: { description: "A page saying the authorization is stored", content: { "text/html": { schema: { type: "string" } } } },
    400: { description: "A page saying why it failed (unknown or used state, refused authorization)", content: { "text/html": { schema: { type: "string" } } } },
  },
});

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const { ok, message } = await handleToolServerOAuthCallback(servicesOf(c), c.req.valid("query"));
    c.header("cache-control", "no-store");
    c.header("referrer-policy", "no-referrer");
    const page = `<!doctype html><html><head><meta charset="utf-8"><title>${ok ? "Connected" : "Not connected"}</title></head><body><p>${escapeHtml(message)}</p></body></html>`;
    return c.html(page, ok ? 200 : 400);
  });
}
