// GET /billing/receipt-pages/{token} (public): a receipt hosted by this installation, for payments whose
// provider issued no invoice (the manual adapter's credits). The token is unguessable; ?print=1 is the
// printable form invoice_pdf_url points to (no PDF is rendered).
import { z } from "zod";
import type { PlatformApp } from "../../context";
import { receiptForPage } from "../../services/billing/payments";
import { defineRoute } from "../define";
import { servicesOf } from "../request";
import { escapeHtml, htmlContent, htmlPage } from "./html-page";

export const route = defineRoute({
  operationId: "receiptPage",
  method: "get",
  path: "/billing/receipt-pages/{token}",
  tags: ["billing"],
  summary: "A hosted receipt (for browsers; the URL is the credential)",
  access: "public",
  request: { params: z.object({ token: z.string().max(200) }), query: z.object({ print: z.string().max(8).optional() }) },
  responses: { 200: htmlContent("The receipt") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const { receipt, email } = await receiptForPage(servicesOf(c), c.req.valid("param").token);
    return htmlPage(
      c,
      `Receipt ${receipt.number}`,
      `<dl><dt>Number</dt><dd data-testid="number">${escapeHtml(receipt.number)}</dd><dt>Date</dt><dd>${escapeHtml(receipt.created_at.slice(0, 10))}</dd>` +
        `<dt>Billed to</dt><dd>${escapeHtml(email)}</dd><dt>Description</dt><dd>${escapeHtml(receipt.description)}</dd>` +
        `<dt>Amount</dt><dd>$${escapeHtml(receipt.amount_usd)} ${escapeHtml(receipt.currency.toUpperCase())}</dd>` +
        `<dt>Reference</dt><dd>${escapeHtml(receipt.payment_reference)}</dd></dl>`,
    );
  });
}
