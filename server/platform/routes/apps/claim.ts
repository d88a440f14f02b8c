// POST /apps/{app}/claim: answered 422 on a self-hosted platform (docs/platform-api.md, "Apps and connections": what is not offered).
import { z } from "zod";
import { AppParam, ClaimRequest } from "@inlay/core/schemas/apps";
import type { PlatformApp } from "../../context";
import { refuseUnavailable } from "../../services/apps/apps";
import { defineRoute, jsonBody, unofferedSuccess } from "../define";

export const route = defineRoute({
  operationId: "claimChatInstall",
  method: "post",
  path: "/apps/{app}/claim",
  tags: ["apps"],
  summary: "Claim a chat app install (not available: 422)",
  request: { params: AppParam, query: z.object({}), body: jsonBody(ClaimRequest) },
  responses: { 200: unofferedSuccess("The chat install claimed (its shape is not shown in the spec)") },
});

export function register(app: PlatformApp) {
  app.openapi(route, (c) => refuseUnavailable(c.var.deps.config, c.req.valid("param").app, "install"));
}
