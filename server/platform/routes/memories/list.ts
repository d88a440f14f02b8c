// GET /memories: an end-user's memories, newest first.
import { listEnvelope } from "@inlay/core/schemas/common";
import { ListMemoriesQuery, Memory } from "@inlay/core/schemas/memories";
import type { PlatformApp } from "../../context";
import { listMemories } from "../../services/agents/memories";
import { defineRoute, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "listMemories",
  method: "get",
  path: "/memories",
  tags: ["memories"],
  summary: "List an end-user's memories",
  request: { query: ListMemoriesQuery },
  responses: { 200: json(listEnvelope(Memory), "A page of memories") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const { user_id, limit, starting_after } = c.req.valid("query");
    const page = await listMemories(servicesOf(c), authOf(c), user_id, { limit, startingAfter: starting_after });
    return c.json(page, 200);
  });
}
