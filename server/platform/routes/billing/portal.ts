// POST /billing/portal: the payment provider's customer portal (cards, invoices, the subscription), or
// without a card provider the installation's own billing page (GET /billing/portal-pages/{token}).
import { PortalLink } from "@inlay/core/schemas/payments";
import type { PlatformApp } from "../../context";
import { openPortal } from "../../services/billing/payments";
import { defineRoute, json } from "../define";
import { authOf, servicesWithJobsOf } from "../request";

export const route = defineRoute({
  operationId: "billingPortal",
  method: "post",
  path: "/billing/portal",
  tags: ["billing"],
  summary: "Billing portal link",
  responses: {
    200: json(PortalLink, "The provider's portal for this account, or the installation's own billing page (payments provider manual)"),
  },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => c.json(await openPortal(servicesWithJobsOf(c), authOf(c)), 200));
}
