// GET /usage/timeseries: tokens and cost per UTC day over a date range, optionally per model.
import { UsageTimeseries, UsageTimeseriesQuery } from "@inlay/core/schemas/billing";
import type { PlatformApp } from "../../context";
import { usageTimeseries } from "../../services/billing/usage";
import { defineRoute, json } from "../define";
import { authOf } from "../request";

export const route = defineRoute({
  operationId: "getUsageTimeseries",
  method: "get",
  path: "/usage/timeseries",
  tags: ["usage"],
  summary: "Usage per UTC day",
  request: { query: UsageTimeseriesQuery },
  responses: { 200: json(UsageTimeseries, "One bucket per day from start_date to end_date, and the totals") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => c.json(await usageTimeseries(c.var.prisma, authOf(c).accountId, c.req.valid("query")), 200));
}
