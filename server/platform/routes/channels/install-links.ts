// GET /channels/install-links: the URLs that install the chat app and the code-host app (one connect
// flow of each); 503 when the chat app is unavailable.
import { ChannelInstallLinks, InstallLinksQuery } from "@inlay/core/schemas/channels";
import type { PlatformApp } from "../../context";
import { channelInstallLinks } from "../../services/messaging/channels";
import { defineRoute, errorResponse, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "getChannelInstallLinks",
  method: "get",
  path: "/channels/install-links",
  tags: ["channels"],
  summary: "Get the links that install the chat app and the code-host app",
  request: { query: InstallLinksQuery },
  responses: {
    200: json(ChannelInstallLinks, "An install link per channel (codehost null when it is unavailable)"),
    503: errorResponse("The chat app is unavailable (chat_app_unavailable), even when the code host is configured"),
  },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const query = c.req.valid("query");
    return c.json(await channelInstallLinks(servicesOf(c), authOf(c), query.user_id, query.redirect_uri), 200);
  });
}
