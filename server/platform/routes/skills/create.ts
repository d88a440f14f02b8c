// POST /skills: a playbook for the scope's agents (or one agent: scope agent with teammate_id).
import { UserScopeQuery } from "@inlay/core/schemas/common";
import { CreateSkillRequest, Skill } from "@inlay/core/schemas/skills";
import type { PlatformApp } from "../../context";
import { pickUserId } from "../../services/scope";
import { createSkill } from "../../services/agents/skills";
import { defineRoute, errorResponse, json, jsonBody } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "createSkill",
  method: "post",
  path: "/skills",
  tags: ["skills"],
  summary: "Create a skill",
  request: { query: UserScopeQuery, body: jsonBody(CreateSkillRequest) },
  responses: {
    201: json(Skill, "The skill"),
    409: errorResponse("skill_exists: the scope has a skill with this name's slug"),
  },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const body = c.req.valid("json");
    const userId = pickUserId(c.req.valid("query").user_id, body.user_id);
    return c.json(await createSkill(servicesOf(c), authOf(c), userId, body), 201);
  });
}
