// PUT /channels/identities: store (replace) the account's own app of a channel; secrets are write-only.
import { Channel, PutChannelIdentityRequest } from "@inlay/core/schemas/channels";
import type { PlatformApp } from "../../context";
import { putChannelIdentity } from "../../services/messaging/channels";
import { defineRoute, json, jsonBody } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "putChannelIdentity",
  method: "put",
  path: "/channels/identities",
  tags: ["channels"],
  summary: "Store the account's own chat or code-host app for its flows",
  request: { body: jsonBody(PutChannelIdentityRequest) },
  responses: { 200: json(Channel, "The channel with the stored identity (no secret is returned)") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => c.json(await putChannelIdentity(servicesOf(c), authOf(c).accountId, c.req.valid("json")), 200));
}
