// Team chat: the Slack Web API (user or bot tokens from OAuth v2). Slack answers errors as 200 with
// {ok: false}; tools hand that answer to the model as it is.
import type { AppDefinition } from "../definition";

export const chat: AppDefinition = {
  slug: "chat",
  name: "Team chat",
  description: "Channels and messages of a team chat workspace (Slack Web API).",
  auth: "oauth2",
  oauth: {
    authorizationUrl: "https://slack.com/oauth/v2/authorize",
    tokenUrl: "https://slack.com/api/oauth.v2.access",
    scopes: ["channels:read", "chat:write", "users:read"],
    scopeSeparator: ",",
    extraTokenTypes: ["bot", "user"],
  },
  apiBaseUrl: "https://slack.com/api",
  identity: { path: "/auth.test", labelField: "team", labelTemplate: "{user} @ {team}", keep: ["team_id", "team"] },
  tools: [
    {
      name: "list_channels",
      description: "List the workspace's channels.",
      method: "GET",
      path: "/conversations.list",
      input: {
        type: "object",
        properties: {
          types: { type: "string", description: "Comma-separated: public_channel, private_channel, mpim, im" },
          limit: { type: "integer", minimum: 1, maximum: 1000 },
          cursor: { type: "string" },
        },
      },
    },
    {
      name: "post_message",
      description: "Post a message to a channel.",
      method: "POST",
      path: "/chat.postMessage",
      input: {
        type: "object",
        properties: { channel: { type: "string", description: "Channel id" }, text: { type: "string" }, thread_ts: { type: "string" } },
        required: ["channel", "text"],
      },
      scopes: ["chat:write"],
    },
  ],
  triggers: [
    {
      name: "message_posted",
      description: "A message was posted in a channel.",
      config: { type: "object", properties: { channel: { type: "string", description: "Channel id; any channel when omitted" } } },
    },
  ],
  source: "builtin",
};
