// GET /billing/plans: the plan catalogue (no auth; counts against the IP allowance like every public route).
import { PlanList, PlanListQuery } from "@inlay/core/schemas/billing";
import type { PlatformApp } from "../../context";
import { listPlans } from "../../services/billing/plans";
import { defineRoute, json } from "../define";

export const route = defineRoute({
  operationId: "listPlans",
  method: "get",
  path: "/billing/plans",
  tags: ["billing"],
  summary: "The plan catalogue",
  access: "public",
  request: { query: PlanListQuery },
  responses: { 200: json(PlanList, "The purchasable plans, cheapest first; the free plan too with include_free=true") },
});

export function register(app: PlatformApp) {
  app.openapi(route, (c) => c.json(listPlans(c.req.valid("query").include_free ?? false), 200));
}
