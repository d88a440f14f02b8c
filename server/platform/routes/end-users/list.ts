// GET /users: the account's end-user profiles, newest first.
import { listEnvelope, PageQuery } from "@inlay/core/schemas/common";
import { EndUser } from "@inlay/core/schemas/end-users";
import type { PlatformApp } from "../../context";
import { listEndUsers } from "../../services/account/end-users";
import { defineRoute, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "listEndUsers",
  method: "get",
  path: "/users",
  tags: ["end-users"],
  summary: "List end-user profiles (account-scoped)",
  request: { query: PageQuery },
  responses: { 200: json(listEnvelope(EndUser), "A page of profiles; starting_after takes a profile's id") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const { limit, starting_after } = c.req.valid("query");
    const page = await listEndUsers(servicesOf(c), authOf(c).accountId, { limit, startingAfter: starting_after });
    return c.json(page, 200);
  });
}
