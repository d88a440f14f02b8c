// GET /apps/{app}/members: list the chat workspaces' members, through the account-level connections of the chat app (no user_id).
import { z } from "zod";
import { AppParam, ChatMember } from "@inlay/core/schemas/apps";
import { listEnvelope } from "@inlay/core/schemas/common";
import type { PlatformApp } from "../../context";
import { chatMembers } from "../../services/apps/app-chat";
import { defineRoute, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "listChatMembers",
  method: "get",
  path: "/apps/{app}/members",
  tags: ["apps"],
  summary: "List the chat workspaces' members",
  request: { params: AppParam, query: z.object({}) },
  responses: { 200: json(listEnvelope(ChatMember), "List the chat workspaces' members") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const data = await chatMembers(servicesOf(c), authOf(c), c.req.valid("param").app);
    return c.json({ data, has_more: false }, 200);
  });
}
