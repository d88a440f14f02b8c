// GET /apps/{app}/tools: the tools an app gives runs (runs see them as <app>__<name>).
import { z } from "zod";
import { AppParam, AppTool } from "@inlay/core/schemas/apps";
import { listEnvelope } from "@inlay/core/schemas/common";
import type { PlatformApp } from "../../context";
import { appTools } from "../../services/apps/apps";
import { defineRoute, json } from "../define";

export const route = defineRoute({
  operationId: "listAppTools",
  method: "get",
  path: "/apps/{app}/tools",
  tags: ["apps"],
  summary: "List an app's tools",
  request: { params: AppParam, query: z.object({}) },
  responses: { 200: json(listEnvelope(AppTool), "The app's tools") },
});

export function register(app: PlatformApp) {
  app.openapi(route, (c) => c.json({ data: appTools(c.var.deps.config, c.req.valid("param").app), has_more: false }, 200));
}
