// GET /agent-templates: templates for POST /agents with from_template (no auth).
import { AgentTemplate, TemplateListQuery } from "@inlay/core/schemas/catalog";
import { listEnvelope } from "@inlay/core/schemas/common";
import type { PlatformApp } from "../../context";
import { PlatformError } from "../../errors";
import { AGENT_TEMPLATES } from "../../services/agents/agent-templates";
import { defineRoute, json } from "../define";

export const route = defineRoute({
  operationId: "listAgentTemplates",
  method: "get",
  path: "/agent-templates",
  tags: ["catalog"],
  summary: "List agent templates",
  access: "public",
  request: { query: TemplateListQuery },
  responses: { 200: json(listEnvelope(AgentTemplate), "A page of templates") },
});

export function register(app: PlatformApp) {
  app.openapi(route, (c) => {
    const { limit, starting_after } = c.req.valid("query");
    let start = 0;
    if (starting_after !== undefined) {
      const index = AGENT_TEMPLATES.findIndex((template) => template.slug === starting_after);
      if (index < 0) {
        throw new PlatformError({ type: "validation_error", message: `starting_after: no template "${starting_after}"` });
      }
      start = index + 1;
    }
    const rest = AGENT_TEMPLATES.slice(start);
    return c.json({ data: rest.slice(0, limit), has_more: rest.length > limit }, 200);
  });
}
