// POST /users: create an end-user profile, or fill in one that so far exists only because its
// user_id was used.
import { ErrorEnvelope } from "@inlay/core/schemas/common";
import { CreateEndUserRequest, EndUser } from "@inlay/core/schemas/end-users";
import type { PlatformApp } from "../../context";
import { createEndUser } from "../../services/account/end-users";
import { defineRoute, json, jsonBody } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "createEndUser",
  method: "post",
  path: "/users",
  tags: ["end-users"],
  summary: "Create an end-user profile",
  request: { body: jsonBody(CreateEndUserRequest) },
  responses: {
    201: json(EndUser, "The profile"),
    409: json(ErrorEnvelope, "A profile with this user_id already holds profile data; use PATCH"),
  },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const { user_id, ...fields } = c.req.valid("json");
    return c.json(await createEndUser(servicesOf(c), authOf(c).accountId, user_id, fields), 201);
  });
}
