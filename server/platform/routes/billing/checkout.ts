// POST /billing/checkout: a subscription to a paid plan through the payment provider.
import { CheckoutLink, PlanCheckoutRequest } from "@inlay/core/schemas/payments";
import type { PlatformApp } from "../../context";
import { startPlanCheckout } from "../../services/billing/payments";
import { defineRoute, errorResponse, json, jsonBody } from "../define";
import { authOf, servicesWithJobsOf } from "../request";

export const route = defineRoute({
  operationId: "checkoutPlan",
  method: "post",
  path: "/billing/checkout",
  tags: ["billing"],
  summary: "Checkout link for a plan",
  request: { body: jsonBody(PlanCheckoutRequest) },
  responses: {
    200: json(CheckoutLink, "The provider's checkout; the plan is activated when it completes"),
    409: errorResponse("card_payments_unavailable: the installation takes no card payments (payments provider manual)"),
  },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const body = c.req.valid("json");
    return c.json(await startPlanCheckout(servicesWithJobsOf(c), authOf(c), body.plan_id, body.billing_period), 200);
  });
}
