// DELETE /skills/{skill_id}: runs that forced it keep the playbook they started with.
import { UserScopeQuery } from "@inlay/core/schemas/common";
import { SkillIdParam } from "@inlay/core/schemas/skills";
import type { PlatformApp } from "../../context";
import { deleteSkill } from "../../services/agents/skills";
import { defineRoute, noContent } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "deleteSkill",
  method: "delete",
  path: "/skills/{skill_id}",
  tags: ["skills"],
  summary: "Delete a skill",
  request: { params: SkillIdParam, query: UserScopeQuery },
  responses: { 204: noContent },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    await deleteSkill(servicesOf(c), authOf(c), c.req.valid("query").user_id, c.req.valid("param").skill_id);
    return c.body(null, 204);
  });
}
