// POST /operator/credits (Inlay extension): the installation's owner credits an account's balance (the
// manual adapter's payments, goodwill, corrections up). Authenticated with the operator key, not an
// API key; every credit is a ledger entry naming who and why, and gets a receipt.
import { OperatorCredit, OperatorCreditRequest } from "@inlay/core/schemas/payments";
import type { PlatformApp } from "../../context";
import { authenticateOperator, operatorCredit } from "../../services/billing/payments";
import { defineRoute, errorResponse, json, jsonBody } from "../define";
import { servicesWithJobsOf } from "../request";

export const route = defineRoute({
  operationId: "operatorCredit",
  method: "post",
  path: "/operator/credits",
  tags: ["operator"],
  summary: "Credit an account's balance (Inlay extension; the installation's owner, with the operator key)",
  description: "X-Operator-Key: <operator key> (or Authorization: Bearer <operator key>), whose SHA-256 is INLAY_OPERATOR_KEY_SHA256. payment_reference completes a pending top-up.",
  access: "public",
  request: { body: jsonBody(OperatorCreditRequest) },
  responses: {
    201: json(OperatorCredit, "Credited: the receipt and the balance now"),
    401: errorResponse("Missing or wrong operator key, or none configured"),
    409: errorResponse("payment_not_pending: the payment_reference was already completed"),
  },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const presented = c.req.header("x-operator-key") ?? /^Bearer\s+(.+)$/i.exec(c.req.header("authorization") ?? "")?.[1]?.trim();
    authenticateOperator(c.var.deps.config, presented);
    return c.json(await operatorCredit(servicesWithJobsOf(c), c.req.valid("json")), 201);
  });
}
