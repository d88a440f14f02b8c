// GET /apps/oauth/callback (public): where apps' authorization servers send the browser back. The
// state finds the flow (once); the code is exchanged; the browser goes on to the caller's redirect_uri.
import { OAuthCallbackQuery } from "@inlay/core/schemas/apps";
import type { PlatformApp } from "../../context";
import { handleOAuthCallback } from "../../services/apps/apps";
import { defineRoute, errorResponse } from "../define";
import { servicesOf } from "../request";

export const route = defineRoute({
  operationId: "appOAuthCallback",
  method: "get",
  path: "/apps/oauth/callback",
  tags: ["apps"],
  summary: "OAuth redirect target of app connections (for authorization servers, not API clients)",
  access: "public",
  // Authorization servers add parameters of their own (scope, authuser, …).
  acceptAnyQuery: true,
  request: { query: OAuthCallbackQuery },
  responses: {
    302: { description: "To the redirect_uri given to connect, with connection_id, app, status (authorized or error), error_description and, for account-level connections, connector_claim" },
    400: errorResponse("The state is missing, unknown, already used or expired (error_code invalid_state)"),
  },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const location = await handleOAuthCallback(servicesOf(c), c.req.valid("query"));
    c.header("cache-control", "no-store");
    c.header("referrer-policy", "no-referrer");
    return c.redirect(location, 302);
  });
}
