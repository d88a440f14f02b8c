// GET /billing/pay/{reference} (public): the manual adapter's "checkout": how this installation takes
// payment, the amount and the reference its owner credits (POST /operator/credits).
import { z } from "zod";
import type { PlatformApp } from "../../context";
import { manualPaymentPage } from "../../services/billing/payments";
import { defineRoute } from "../define";
import { servicesOf } from "../request";
import { escapeHtml, htmlContent, htmlPage } from "./html-page";

export const route = defineRoute({
  operationId: "manualPaymentPage",
  method: "get",
  path: "/billing/pay/{reference}",
  tags: ["billing"],
  summary: "How to pay a pending top-up on an installation without a card provider (for browsers)",
  access: "public",
  request: { params: z.object({ reference: z.string().max(64) }) },
  responses: { 200: htmlContent("The payment's instructions and state") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const page = await manualPaymentPage(servicesOf(c), c.req.valid("param").reference);
    const state = page.status === "completed" ? "Received: your balance has been credited." : `Status: ${page.status}.`;
    return htmlPage(
      c,
      `Top-up of ${page.amount}`,
      `<p>${escapeHtml(page.instructions)}</p><p>Reference: <code data-testid="reference">${escapeHtml(page.reference)}</code></p>` +
        `<p>Amount: <strong>${escapeHtml(page.amount)}</strong></p><p>${escapeHtml(state)}</p>`,
    );
  });
}
