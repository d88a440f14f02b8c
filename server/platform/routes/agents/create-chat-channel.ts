// POST /agents/{agent_id}/chat-channel: make a channel for the agent in the account's chat workspace
// and bind it to the agent (needs the chat app connected at the account level).
import { AgentChatChannel, AgentIdParam } from "@inlay/core/schemas/agents";
import { UserScopeQuery } from "@inlay/core/schemas/common";
import type { PlatformApp } from "../../context";
import { createAgentChatChannel } from "../../services/agents/agents";
import { resolveScope } from "../../services/scope";
import { defineRoute, errorResponse, json } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "createAgentChatChannel",
  method: "post",
  path: "/agents/{agent_id}/chat-channel",
  tags: ["agents"],
  summary: "Create a chat channel for the agent and bind it",
  request: { params: AgentIdParam, query: UserScopeQuery },
  responses: {
    201: json(AgentChatChannel, "The new channel, and the agent with it in chat_channels"),
    409: errorResponse("The workspace has a channel of that name (chat_channel_name_taken)"),
    502: errorResponse("The chat app refused the call (app_request_failed)"),
  },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const auth = authOf(c);
    const scope = await resolveScope(servicesOf(c), auth, c.req.valid("query").user_id);
    return c.json(await createAgentChatChannel(servicesOf(c), auth, scope, c.req.valid("param").agent_id), 201);
  });
}
