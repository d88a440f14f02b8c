// POST /billing/portal: the payment provider's customer portal (cards, invoices, the subscription).
import { PortalLink } from "@/lib/schemas/payments";
import type { PlatformApp } from "../../context";
import { openPortal } from "../../services/billing/payments";
import { defineRoute, errorResponse, json } from "../define";
import { authOf, servicesWithJobsOf } from "../request";

export const route = defineRoute({
  operationId: "billingPortal",
  method: "post",
  path: "/billing/portal",
  tags: ["billing"],
  summary: "Billing portal link",
  responses: {
    200: json(PortalLink, "The provider's portal for this account"),
    409: errorResponse("card_payments_unavailable: the installation takes no card payments (payments provider manual)"),
  },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => c.json(await openPortal(servicesWithJobsOf(c), authOf(c)), 200));
}
