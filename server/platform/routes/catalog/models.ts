// GET /models: the model catalogue (sim plus every provider configured by env).
import { type z } from "zod";
import { ModelEntry, ModelListQuery } from "@inlay/core/schemas/catalog";
import { listEnvelope } from "@inlay/core/schemas/common";
import type { PlatformApp } from "../../context";
import { modelCatalog } from "../../models/catalog";
import { defineRoute, json } from "../define";

export const route = defineRoute({
  operationId: "listModels",
  method: "get",
  path: "/models",
  tags: ["catalog"],
  summary: "List the models agents and runs can use",
  request: { query: ModelListQuery },
  responses: { 200: json(listEnvelope(ModelEntry), "Model catalogue entries") },
});

export function register(app: PlatformApp) {
  app.openapi(route, (c) => {
    const query = c.req.valid("query");
    const entries = modelCatalog(c.var.deps.config.models).filter(
      (entry) =>
        (query.zdr === undefined || entry.zdr_supported === query.zdr) &&
        (query.author === undefined || entry.author === query.author) &&
        (query.curated === undefined || entry.curated === query.curated),
    );
    const data: z.infer<typeof ModelEntry>[] = entries.slice(0, query.limit);
    return c.json({ data, has_more: entries.length > query.limit }, 200);
  });
}
