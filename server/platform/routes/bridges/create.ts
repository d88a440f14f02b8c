// POST /bridges: register the account's iMessage bridge server (account-scoped; the password is never returned).
import { Bridge, BridgeCreate } from "@inlay/core/schemas/bridges";
import type { PlatformApp } from "../../context";
import { createBridge } from "../../services/messaging/bridges";
import { defineRoute, json, jsonBody } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "createBridge",
  method: "post",
  path: "/bridges",
  tags: ["bridges"],
  summary: "Register an iMessage bridge server (account-scoped)",
  request: { body: jsonBody(BridgeCreate) },
  responses: { 201: json(Bridge, "The bridge (the password is never returned: has_password)") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => c.json(await createBridge(servicesOf(c), authOf(c), c.req.valid("json")), 201));
}
