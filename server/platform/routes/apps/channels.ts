// GET /apps/{app}/channels: list the chat workspaces' channels, through the account-level connections of the chat app (no user_id).
import { z } from "zod";
import { AppParam, ChatChannel } from "@inlay/core/schemas/apps";
import { listEnvelope } from "@inlay/core/schemas/common";
import type { PlatformApp } from "../../context";
import { chatChannels } from "../../services/apps/app-chat";
import { defineRoute, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "listChatChannels",
  method: "get",
  path: "/apps/{app}/channels",
  tags: ["apps"],
  summary: "List the chat workspaces' channels",
  request: { params: AppParam, query: z.object({}) },
  responses: { 200: json(listEnvelope(ChatChannel), "List the chat workspaces' channels") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const data = await chatChannels(servicesOf(c), authOf(c), c.req.valid("param").app);
    return c.json({ data, has_more: false }, 200);
  });
}
