// GET /billing/checkout/return (public): where the provider's checkout sends the payer back. It asks
// the provider about the session and applies a completed payment, exactly once with the webhook.
import { z } from "zod";
import type { PlatformApp } from "../../context";
import { returnFromCheckout } from "../../services/billing/payments";
import { defineRoute } from "../define";
import { servicesWithJobsOf } from "../request";
import { escapeHtml, htmlContent, htmlPage } from "./html-page";

const ReturnQuery = z.object({
  session_id: z.string().max(255).optional(),
  cancelled: z.string().max(64).optional(),
  portal: z.string().max(8).optional(),
});

export const route = defineRoute({
  operationId: "checkoutReturn",
  method: "get",
  path: "/billing/checkout/return",
  tags: ["billing"],
  summary: "Return page of the provider's checkout and portal (for browsers, not API clients)",
  access: "public",
  request: { query: ReturnQuery },
  responses: { 200: htmlContent("The payment's state"), 202: htmlContent("The payment is not complete yet") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const query = c.req.valid("query");
    if (!query.session_id) {
      const text = query.cancelled ? "The payment was cancelled; nothing was charged." : "You can close this page.";
      return htmlPage(c, query.cancelled ? "Payment cancelled" : "Billing", `<p>${escapeHtml(text)}</p>`);
    }
    const result = await returnFromCheckout(servicesWithJobsOf(c), query.session_id);
    const done = result.status === "completed";
    const what = result.kind === "plan" ? "Your plan is active." : "Your balance has been credited.";
    return htmlPage(
      c,
      done ? "Payment received" : "Payment pending",
      `<p>${escapeHtml(done ? what : "The payment is not complete yet: this page shows it once it is.")}</p><p>Reference: <code>${escapeHtml(result.reference)}</code></p>`,
      done ? 200 : 202,
    );
  });
}
