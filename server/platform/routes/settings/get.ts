// GET /settings: the account's settings (account-scoped: no user_id).
import { Settings } from "@inlay/core/schemas/settings";
import type { PlatformApp } from "../../context";
import { getSettings } from "../../services/account/settings";
import { defineRoute, json } from "../define";
import { authOf } from "../request";

export const route = defineRoute({
  operationId: "getSettings",
  method: "get",
  path: "/settings",
  tags: ["settings"],
  summary: "Get the account's settings",
  responses: { 200: json(Settings, "The settings") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => c.json(await getSettings(c.var.prisma, authOf(c).accountId), 200));
}
