// POST /billing/topup: a payment of amount_cents to the balance, credited when the payment completes.
import { CheckoutLink, TopupRequest } from "@inlay/core/schemas/payments";
import type { PlatformApp } from "../../context";
import { startTopup } from "../../services/billing/payments";
import { defineRoute, jsonBody, json } from "../define";
import { authOf, servicesWithJobsOf } from "../request";

export const route = defineRoute({
  operationId: "topupBalance",
  method: "post",
  path: "/billing/topup",
  tags: ["billing"],
  summary: "Top up the balance",
  description:
    "Answers where to pay: the provider's checkout (stripe), or this installation's page saying how it takes payment (manual). " +
    "The balance is credited once the payment completes, exactly once.",
  request: { body: jsonBody(TopupRequest) },
  responses: { 200: json(CheckoutLink, "Where to pay, and the payment's reference") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => c.json(await startTopup(servicesWithJobsOf(c), authOf(c), c.req.valid("json").amount_cents), 200));
}
