// GET /usage: the account's usage this billing period (the calendar month in UTC) and its balance.
import { Usage } from "@/lib/schemas/billing";
import type { PlatformApp } from "../../context";
import { getUsage } from "../../services/usage";
import { defineRoute, json } from "../define";
import { authOf } from "../request";

export const route = defineRoute({
  operationId: "getUsage",
  method: "get",
  path: "/usage",
  tags: ["usage"],
  summary: "The account's usage this billing period",
  responses: { 200: json(Usage, "The Usage resource; plan fields are neutral (Inlay has no plans)") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => c.json(await getUsage(c.var.prisma, authOf(c).accountId), 200));
}
