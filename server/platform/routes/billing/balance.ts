// GET /billing/balance: the prepaid token balance in micro-USD and its newest ledger entries.
import { TokenBalance } from "@inlay/core/schemas/billing";
import type { PlatformApp } from "../../context";
import { getBalance } from "../../services/billing/billing";
import { defineRoute, json } from "../define";
import { authOf } from "../request";

export const route = defineRoute({
  operationId: "getBalance",
  method: "get",
  path: "/billing/balance",
  tags: ["billing"],
  summary: "The token balance and its ledger",
  responses: { 200: json(TokenBalance, "The balance, what runs in progress hold, and the 50 newest transactions") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => c.json(await getBalance(c.var.prisma, authOf(c).accountId), 200));
}
