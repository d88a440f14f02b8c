// PATCH /billing/alert-settings: a low-balance alert, mailed and sent as a billing.low_balance webhook event.
import { AlertSettings, AlertSettingsRequest } from "@inlay/core/schemas/payments";
import type { PlatformApp } from "../../context";
import { setAlertSettings } from "../../services/billing/payments";
import { defineRoute, json, jsonBody } from "../define";
import { authOf, servicesWithJobsOf } from "../request";

export const route = defineRoute({
  operationId: "updateAlertSettings",
  method: "patch",
  path: "/billing/alert-settings",
  tags: ["billing"],
  summary: "Low-balance alert",
  description: "Once per crossing below the threshold (0 turns it off): a mail to the account's email and a billing.low_balance webhook event.",
  request: { body: jsonBody(AlertSettingsRequest) },
  responses: { 200: json(AlertSettings, "The settings now") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => c.json(await setAlertSettings(servicesWithJobsOf(c), authOf(c), c.req.valid("json").low_balance_threshold_cents), 200));
}
