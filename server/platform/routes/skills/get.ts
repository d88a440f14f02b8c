// GET /skills/{skill_id}: one skill of the scope.
import { UserScopeQuery } from "@inlay/core/schemas/common";
import { Skill, SkillIdParam } from "@inlay/core/schemas/skills";
import type { PlatformApp } from "../../context";
import { getSkill } from "../../services/agents/skills";
import { defineRoute, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "getSkill",
  method: "get",
  path: "/skills/{skill_id}",
  tags: ["skills"],
  summary: "Get a skill",
  request: { params: SkillIdParam, query: UserScopeQuery },
  responses: { 200: json(Skill, "The skill") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    return c.json(await getSkill(servicesOf(c), authOf(c), c.req.valid("query").user_id, c.req.valid("param").skill_id), 200);
  });
}
