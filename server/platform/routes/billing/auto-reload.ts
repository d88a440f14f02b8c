// PATCH /billing/auto-reload: charge the saved card amount_cents when the balance falls below threshold_cents.
import { AutoReloadRequest, AutoReloadSettings } from "@inlay/core/schemas/payments";
import type { PlatformApp } from "../../context";
import { setAutoReload } from "../../services/billing/payments";
import { defineRoute, json, jsonBody } from "../define";
import { authOf, servicesWithJobsOf } from "../request";

export const route = defineRoute({
  operationId: "updateAutoReload",
  method: "patch",
  path: "/billing/auto-reload",
  tags: ["billing"],
  summary: "Auto-reload settings",
  description:
    "One charge per crossing of the threshold, however many runs cross it at once; re-armed when the balance is back at or above it. " +
    "The card is the one saved by a card top-up (payment_method_saved); without one, or on a manual installation, last_error says why nothing was charged.",
  request: { body: jsonBody(AutoReloadRequest) },
  responses: { 200: json(AutoReloadSettings, "The settings now") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => c.json(await setAutoReload(servicesWithJobsOf(c), authOf(c), c.req.valid("json")), 200));
}
