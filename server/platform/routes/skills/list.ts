// GET /skills: the scope's skills, newest first.
import { listEnvelope } from "@inlay/core/schemas/common";
import { ListSkillsQuery, Skill } from "@inlay/core/schemas/skills";
import type { PlatformApp } from "../../context";
import { listSkills } from "../../services/agents/skills";
import { defineRoute, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "listSkills",
  method: "get",
  path: "/skills",
  tags: ["skills"],
  summary: "List skills",
  request: { query: ListSkillsQuery },
  responses: { 200: json(listEnvelope(Skill), "A page of skills") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const { user_id, limit, starting_after } = c.req.valid("query");
    return c.json(await listSkills(servicesOf(c), authOf(c), user_id, { limit, startingAfter: starting_after }), 200);
  });
}
