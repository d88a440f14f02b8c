// GET /skills/invokable: the / picker's entries, platform commands and custom skills.
import { listEnvelope } from "@inlay/core/schemas/common";
import { InvokableSkill, InvokableSkillsQuery } from "@inlay/core/schemas/skills";
import type { PlatformApp } from "../../context";
import { listInvokableSkills } from "../../services/agents/skills";
import { defineRoute, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "listInvokableSkills",
  method: "get",
  path: "/skills/invokable",
  tags: ["skills"],
  summary: "What a run can force: platform commands and active custom skills",
  request: { query: InvokableSkillsQuery },
  responses: { 200: json(listEnvelope(InvokableSkill), "Every entry, sorted by slug (has_more is always false)") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const { user_id, teammate_id } = c.req.valid("query");
    return c.json(await listInvokableSkills(servicesOf(c), authOf(c), user_id, teammate_id), 200);
  });
}
