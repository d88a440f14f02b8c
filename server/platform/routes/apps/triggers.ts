// GET /apps/{app}/triggers: the event types an app's triggers stand for.
import { z } from "zod";
import { AppParam, AppTrigger } from "@inlay/core/schemas/apps";
import { listEnvelope } from "@inlay/core/schemas/common";
import type { PlatformApp } from "../../context";
import { appTriggers } from "../../services/apps/apps";
import { defineRoute, json } from "../define";

export const route = defineRoute({
  operationId: "listAppTriggers",
  method: "get",
  path: "/apps/{app}/triggers",
  tags: ["apps"],
  summary: "List an app's trigger types",
  request: { params: AppParam, query: z.object({}) },
  responses: { 200: json(listEnvelope(AppTrigger), "The app's trigger types") },
});

export function register(app: PlatformApp) {
  app.openapi(route, (c) => c.json({ data: appTriggers(c.var.deps.config, c.req.valid("param").app), has_more: false }, 200));
}
