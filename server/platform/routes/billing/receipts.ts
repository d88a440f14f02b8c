// GET /billing/receipts: one numbered receipt per completed payment, newest first.
import { ReceiptListQuery, ReceiptPage } from "@inlay/core/schemas/payments";
import type { PlatformApp } from "../../context";
import { listReceipts } from "../../services/billing/payments";
import { defineRoute, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "listReceipts",
  method: "get",
  path: "/billing/receipts",
  tags: ["billing"],
  summary: "Receipts",
  request: { query: ReceiptListQuery },
  responses: { 200: json(ReceiptPage, "The account's receipts, newest first") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => c.json(await listReceipts(servicesOf(c), authOf(c), c.req.valid("query")), 200));
}
