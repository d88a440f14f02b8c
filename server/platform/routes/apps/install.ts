// POST /apps/{app}/install: answered 422 on a self-hosted platform (docs/platform-api.md, "Apps and connections": what is not offered).
import { z } from "zod";
import { AppParam } from "@inlay/core/schemas/apps";
import type { PlatformApp } from "../../context";
import { refuseUnavailable } from "../../services/apps/apps";
import { defineRoute, unofferedSuccess } from "../define";

export const route = defineRoute({
  operationId: "installChatApp",
  method: "post",
  path: "/apps/{app}/install",
  tags: ["apps"],
  summary: "Start the chat app install (not available: 422)",
  request: { params: AppParam, query: z.object({}) },
  responses: { 200: unofferedSuccess("The chat app install started (its shape is not shown in the spec)") },
});

export function register(app: PlatformApp) {
  app.openapi(route, (c) => refuseUnavailable(c.var.deps.config, c.req.valid("param").app, "install"));
}
