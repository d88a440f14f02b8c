// PATCH /settings: change the account's settings (omitted fields stay; account-scoped: no user_id).
import { Settings, UpdateSettingsRequest } from "@inlay/core/schemas/settings";
import type { PlatformApp } from "../../context";
import { updateSettings } from "../../services/account/settings";
import { defineRoute, json, jsonBody } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "updateSettings",
  method: "patch",
  path: "/settings",
  tags: ["settings"],
  summary: "Update the account's settings",
  // No body at all is an empty change, like {}.
  request: { body: jsonBody(UpdateSettingsRequest, { required: false }) },
  responses: { 200: json(Settings, "The settings after the change") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) =>
    c.json(await updateSettings(servicesOf(c), authOf(c).accountId, c.req.valid("json")), 200),
  );
}
