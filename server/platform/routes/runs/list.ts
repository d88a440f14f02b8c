// GET /runs: the scope's runs with every filter of the spec, by creation or by priority, paged.
import { z } from "zod";
import { listEnvelope } from "@inlay/core/schemas/common";
import { RunListFullQuery, RunListItem, RunSummary } from "@inlay/core/schemas/runs";
import type { PlatformApp } from "../../context";
import { listRunsPage } from "../../services/runs/run-lists";
import { resolveScope } from "../../services/scope";
import { defineRoute, json } from "../define";
import { authOf, runServicesOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "listRuns",
  method: "get",
  path: "/runs",
  tags: ["runs"],
  summary: "List runs",
  request: { query: RunListFullQuery },
  responses: {
    200: json(z.union([listEnvelope(RunListItem), listEnvelope(RunSummary)]), "A page of runs (summaries with fields=summary)"),
  },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const query = c.req.valid("query");
    const scope = await resolveScope(servicesOf(c), authOf(c), query.user_id, { strict: true });
    return c.json(await listRunsPage(runServicesOf(c), scope, query), 200);
  });
}
