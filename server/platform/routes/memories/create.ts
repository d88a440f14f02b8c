// POST /memories: save a memory for an end-user.
import { UserScopeQuery } from "@inlay/core/schemas/common";
import { CreateMemoryRequest, Memory } from "@inlay/core/schemas/memories";
import type { PlatformApp } from "../../context";
import { createMemory } from "../../services/agents/memories";
import { pickUserId } from "../../services/scope";
import { defineRoute, json, jsonBody } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "createMemory",
  method: "post",
  path: "/memories",
  tags: ["memories"],
  summary: "Save a memory for an end-user",
  request: { query: UserScopeQuery, body: jsonBody(CreateMemoryRequest) },
  responses: { 201: json(Memory, "The memory") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const body = c.req.valid("json");
    const userId = pickUserId(c.req.valid("query").user_id, body.user_id);
    return c.json(await createMemory(servicesOf(c), authOf(c), userId, body.content), 201);
  });
}
