// GET /usage/end-users: each end-user's runs, tokens and cost this billing period, beside its caps.
import { EndUserUsagePage, EndUserUsageQuery } from "@inlay/core/schemas/billing";
import type { PlatformApp } from "../../context";
import { listEndUserUsage } from "../../services/billing/usage";
import { defineRoute, json } from "../define";
import { authOf } from "../request";

export const route = defineRoute({
  operationId: "listEndUserUsage",
  method: "get",
  path: "/usage/end-users",
  tags: ["usage"],
  summary: "Per-end-user usage this billing period",
  request: { query: EndUserUsageQuery },
  responses: {
    200: json(EndUserUsagePage, "End-users newest first; starting_after takes the item's id; user_id narrows to one"),
  },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => c.json(await listEndUserUsage(c.var.prisma, authOf(c).accountId, c.req.valid("query")), 200));
}
