// PATCH /skills/{skill_id}: name (and so slug), description, body, status.
import { UserScopeQuery } from "@inlay/core/schemas/common";
import { Skill, SkillIdParam, UpdateSkillRequest } from "@inlay/core/schemas/skills";
import type { PlatformApp } from "../../context";
import { updateSkill } from "../../services/agents/skills";
import { defineRoute, errorResponse, json, jsonBody } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "updateSkill",
  method: "patch",
  path: "/skills/{skill_id}",
  tags: ["skills"],
  summary: "Update a skill",
  request: { params: SkillIdParam, query: UserScopeQuery, body: jsonBody(UpdateSkillRequest, { required: false }) },
  responses: {
    200: json(Skill, "The skill"),
    409: errorResponse("skill_exists: the scope has a skill with the new name's slug"),
  },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const updated = await updateSkill(servicesOf(c), authOf(c), c.req.valid("query").user_id, c.req.valid("param").skill_id, c.req.valid("json") ?? {});
    return c.json(updated, 200);
  });
}
