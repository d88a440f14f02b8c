// DELETE /memories/{memory_id}: delete one of an end-user's memories.
import { UserScopeQuery } from "@inlay/core/schemas/common";
import { DeleteMemoryRequest, MemoryIdParam } from "@inlay/core/schemas/memories";
import type { PlatformApp } from "../../context";
import { deleteMemory } from "../../services/agents/memories";
import { pickUserId } from "../../services/scope";
import { defineRoute, jsonBody, noContent } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "deleteMemory",
  method: "delete",
  path: "/memories/{memory_id}",
  tags: ["memories"],
  summary: "Delete an end-user's memory",
  // user_id usually comes in the query string; a body is accepted for clients that send one.
  request: { params: MemoryIdParam, query: UserScopeQuery, body: jsonBody(DeleteMemoryRequest, { required: false }) },
  responses: { 204: noContent },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const userId = pickUserId(c.req.valid("query").user_id, c.req.valid("json").user_id);
    await deleteMemory(servicesOf(c), authOf(c), userId, c.req.valid("param").memory_id);
    return c.body(null, 204);
  });
}
