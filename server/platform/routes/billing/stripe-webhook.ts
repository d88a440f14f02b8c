// POST /billing/webhooks/stripe (Inlay extension, public): Stripe's events, verified with the
// endpoint's signing secret and applied once per event id.
import { WebhookReceived } from "@inlay/core/schemas/payments";
import type { PlatformApp } from "../../context";
import { receiveProviderWebhook } from "../../services/billing/payments";
import { defineRoute, errorResponse, json } from "../define";
import { servicesWithJobsOf } from "../request";

export const route = defineRoute({
  operationId: "receiveStripeWebhook",
  method: "post",
  path: "/billing/webhooks/stripe",
  tags: ["billing"],
  summary: "Stripe's webhook endpoint (Inlay extension; for Stripe, not API clients)",
  access: "public",
  responses: {
    200: json(WebhookReceived, "Applied, or already applied (duplicate)"),
    400: errorResponse("invalid_signature: the Stripe-Signature does not verify"),
    404: errorResponse("This installation takes no Stripe payments"),
  },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    // The raw body: the signature is over its exact bytes.
    const result = await receiveProviderWebhook(servicesWithJobsOf(c), await c.req.text(), c.req.header("stripe-signature"));
    return c.json(result, 200);
  });
}
