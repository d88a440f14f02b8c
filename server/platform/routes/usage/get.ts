// GET /usage: the account's usage this billing period (its plan's monthly window, or the calendar month in
// UTC when prepaid), its plan's limits, and its balance.
import { Usage } from "@inlay/core/schemas/billing";
import type { PlatformApp } from "../../context";
import { getUsage } from "../../services/billing/usage";
import { defineRoute, json } from "../define";
import { authOf } from "../request";

export const route = defineRoute({
  operationId: "getUsage",
  method: "get",
  path: "/usage",
  tags: ["usage"],
  summary: "The account's usage this billing period",
  responses: { 200: json(Usage, "The Usage resource: the plan (or prepaid), its limits and overage, and the balance") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => c.json(await getUsage(c.var.prisma, authOf(c).accountId), 200));
}
