// GET /value/report: confirmed value against the linked runs' cost, per use case, over UTC days.
import { ValueReport, ValueReportQuery } from "@inlay/core/schemas/value";
import type { PlatformApp } from "../../context";
import { valueReport } from "../../services/agents/value";
import { defineRoute, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "getValueReport",
  method: "get",
  path: "/value/report",
  tags: ["value"],
  summary: "Value report",
  request: { query: ValueReportQuery },
  responses: { 200: json(ValueReport, "The report") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const { user_id, ...range } = c.req.valid("query");
    return c.json(await valueReport(servicesOf(c), authOf(c), user_id, range), 200);
  });
}
