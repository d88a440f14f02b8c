// GET /channels: the chat and code-host channels, each with whose app it uses (account-scoped).
import { Channel } from "@inlay/core/schemas/channels";
import { listEnvelope } from "@inlay/core/schemas/common";
import type { PlatformApp } from "../../context";
import { listChannels } from "../../services/messaging/channels";
import { defineRoute, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "listChannels",
  method: "get",
  path: "/channels",
  tags: ["channels"],
  summary: "List the channels and the state of the account's identity of each",
  responses: { 200: json(listEnvelope(Channel), "Both channels (has_more is always false); no secret is returned") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => c.json(await listChannels(servicesOf(c), authOf(c).accountId), 200));
}
