// GET /runs/needs-you: runs waiting for a person (awaiting_approval, paused), newest first, with
// their pending permission requests.
import { PageQuery, UserId, listEnvelope } from "@inlay/core/schemas/common";
import { NeedsYouItem } from "@inlay/core/schemas/runs";
import type { PlatformApp } from "../../context";
import { listRunsNeedingYou } from "../../services/runs/run-lists";
import { resolveScope } from "../../services/scope";
import { defineRoute, json } from "../define";
import { authOf, runServicesOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "listRunsNeedingYou",
  method: "get",
  path: "/runs/needs-you",
  tags: ["runs"],
  summary: "Runs waiting for a person",
  request: { query: PageQuery.extend({ user_id: UserId.optional() }) },
  responses: { 200: json(listEnvelope(NeedsYouItem), "A page of runs waiting for a person") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const query = c.req.valid("query");
    const scope = await resolveScope(servicesOf(c), authOf(c), query.user_id, { strict: true });
    return c.json(await listRunsNeedingYou(runServicesOf(c), scope, query), 200);
  });
}
