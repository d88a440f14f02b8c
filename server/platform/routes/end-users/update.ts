// PATCH /users/{user_id}: change an end-user profile (omitted fields stay, null clears).
import { EndUser, EndUserParam, UpdateEndUserRequest } from "@inlay/core/schemas/end-users";
import type { PlatformApp } from "../../context";
import { updateEndUser } from "../../services/account/end-users";
import { defineRoute, json, jsonBody } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "updateEndUser",
  method: "patch",
  path: "/users/{user_id}",
  tags: ["end-users"],
  summary: "Update an end-user profile",
  request: { params: EndUserParam, body: jsonBody(UpdateEndUserRequest) },
  responses: { 200: json(EndUser, "The updated profile") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const { user_id } = c.req.valid("param");
    return c.json(await updateEndUser(servicesOf(c), authOf(c).accountId, user_id, c.req.valid("json")), 200);
  });
}
