// GET /users/{user_id}: one end-user profile.
import { EndUser, EndUserParam } from "@inlay/core/schemas/end-users";
import type { PlatformApp } from "../../context";
import { getEndUser } from "../../services/account/end-users";
import { defineRoute, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "getEndUser",
  method: "get",
  path: "/users/{user_id}",
  tags: ["end-users"],
  summary: "Get an end-user profile",
  request: { params: EndUserParam },
  responses: { 200: json(EndUser, "The profile") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    return c.json(await getEndUser(servicesOf(c), authOf(c).accountId, c.req.valid("param").user_id), 200);
  });
}
