// DELETE /apps/{app}/workspaces/{team_id}: disconnect one chat workspace (its account-level connection).
import { z } from "zod";
import { TeamIdParam } from "@inlay/core/schemas/apps";
import type { PlatformApp } from "../../context";
import { deleteChatWorkspace } from "../../services/apps/app-chat";
import { defineRoute, noContent } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "deleteChatWorkspace",
  method: "delete",
  path: "/apps/{app}/workspaces/{team_id}",
  tags: ["apps"],
  summary: "Disconnect a chat workspace",
  request: { params: TeamIdParam, query: z.object({}) },
  responses: { 204: noContent },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const { app: slug, team_id } = c.req.valid("param");
    await deleteChatWorkspace(servicesOf(c), authOf(c), slug, team_id);
    return c.body(null, 204);
  });
}
