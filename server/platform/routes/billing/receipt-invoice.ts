// GET /billing/receipts/{receipt_id}/invoice: the receipt's invoice URLs (the provider's, or our hosted receipt page).
import { ReceiptIdParam, ReceiptInvoice } from "@inlay/core/schemas/payments";
import type { PlatformApp } from "../../context";
import { receiptInvoice } from "../../services/billing/payments";
import { defineRoute, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "getReceiptInvoice",
  method: "get",
  path: "/billing/receipts/{receipt_id}/invoice",
  tags: ["billing"],
  summary: "A receipt's invoice",
  request: { params: ReceiptIdParam },
  responses: { 200: json(ReceiptInvoice, "Invoice URLs: the provider's when it issued one, else this installation's receipt page") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => c.json(await receiptInvoice(servicesOf(c), authOf(c), c.req.valid("param").receipt_id), 200));
}
