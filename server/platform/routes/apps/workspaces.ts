// GET /apps/{app}/workspaces: list the connected chat workspaces, through the account-level connections of the chat app (no user_id).
import { z } from "zod";
import { AppParam, ChatWorkspace } from "@inlay/core/schemas/apps";
import { listEnvelope } from "@inlay/core/schemas/common";
import type { PlatformApp } from "../../context";
import { chatWorkspaces } from "../../services/apps/app-chat";
import { defineRoute, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "listChatWorkspaces",
  method: "get",
  path: "/apps/{app}/workspaces",
  tags: ["apps"],
  summary: "List the connected chat workspaces",
  request: { params: AppParam, query: z.object({}) },
  responses: { 200: json(listEnvelope(ChatWorkspace), "List the connected chat workspaces") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const data = await chatWorkspaces(servicesOf(c), authOf(c), c.req.valid("param").app);
    return c.json({ data, has_more: false }, 200);
  });
}
